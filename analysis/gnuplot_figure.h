// Figures rendered by gnuplot. Each figure leaves NAME.gp (the script), NAME.dat (its data),
// NAME.svg and NAME.png side by side, so a user can restyle it and rerun `gnuplot NAME.gp`.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>

namespace kvb {

// The gnuplot program: $KVBENCH_GNUPLOT if set, else the one CMake found at build time.
std::string gnuplot_executable();

struct GnuplotFigure {
  std::string name;    // file stem, e.g. "roofline_cpu0"
  std::string title;   // comment at the top of the script
  int width = 960;     // pixels (png) / points (svg)
  int height = 600;
  std::string data;    // contents of NAME.dat (gnuplot blocks, separated by two blank lines)
  std::string body;    // set/plot commands; refer to the data file as `datafile`
};

// The gnuplot program could not be started (not installed, or $KVBENCH_GNUPLOT names no
// program): the figure's script and data are written, its images are not.
struct GnuplotNotFound : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes NAME.gp and NAME.dat into `dir` (what render_figure runs gnuplot on).
void write_figure_sources(const std::filesystem::path& dir, const GnuplotFigure& figure);

// Writes the script and data into `dir` and runs gnuplot there. Throws GnuplotNotFound if gnuplot
// cannot be started, std::runtime_error with gnuplot's own messages if it fails or does not
// produce both images.
void render_figure(const std::filesystem::path& dir, const GnuplotFigure& figure);

// Quotes a string for a gnuplot script (double quotes; escapes backslash and quote).
std::string gnuplot_quote(const std::string& s);

}  // namespace kvb
