// `kvbench report <csv>... --out DIR`: validates result CSVs and writes DIR/report.md with
// roofline, LLC-fit, context and thread-scaling figures (SVG + PNG + gnuplot script + data).
#pragma once

namespace kvb {

// argv[0] is the subcommand name. Returns 0 on success, 2 on bad input, 1 if rendering failed.
int report_main(int argc, char** argv);

}  // namespace kvb
