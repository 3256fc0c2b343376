# Variants for exp-scales-variants.sh (../phase-breakdown/harness_variants.sh spec).
EXP = ("const auto p = ExpNonPositive(dt,", "const auto p = hn::Exp(dt,")
IDENT = ("const auto p = ExpNonPositive(dt, hn::Sub(hn::Load(dt, sg + r), m));",
         "const auto p = hn::Sub(hn::Load(dt, sg + r), m);")
PF = ("    if (a.kscale != nullptr && a.prefetch != SwPrefetch::kNone)\n", "    if (false)\n")
KS = ("const float* kscale = a.kscale ? a.kscale + t : nullptr;",
      "const float* kscale = a.kscale ? a.kscale + (t & 63) : nullptr;")
VS = ("sg[r] *= a.vscale[t + r] * kDecodeUnit<P>;", "sg[r] *= a.vscale[(t & 63) + r] * kDecodeUnit<P>;")
variants = {"cur": [], "hwexp": [EXP], "nopf": [PF], "main": [EXP, PF], "noexp": [IDENT], "l1sc": [KS, VS]}
