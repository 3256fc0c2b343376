# Variants for softmax-knockout.sh (../phase-breakdown/harness_variants.sh spec).
SM = ("    for (g = 0; g < G; ++g) {\n      float* sg = s + g * kT;", "    for (g = 0; g < 0; ++g) {\n      float* sg = s + g * kT;")
VS = ("      if (a.vscale != nullptr)\n        for (std::int64_t r = 0; r < rows; ++r) sg[r] *= a.vscale[t + r] * kDecodeUnit<P>;", "")
ACC = ("    g = 0;\n    pass = 0;\n    const auto vpass", "    continue;\n    g = 0;\n    pass = 0;\n    const auto vpass")
variants = {"cur": [], "nosm": [SM], "novs": [VS], "noacc": [ACC]}
