#include "analysis/xz_source.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>
#pragma GCC diagnostic pop

#include <boost/iostreams/device/file.hpp>
#include <boost/iostreams/filter/lzma.hpp>
#include <boost/iostreams/filtering_stream.hpp>

#include "analysis/input_error.h"

namespace kvb {
namespace {

namespace bio = boost::iostreams;

std::string decoding_problem(int code) {
  if (code == bio::lzma::buf_error) return "xz stream cut short";
  if (code == bio::lzma::mem_error) return "out of memory decompressing xz";
  if (code == bio::lzma::unsupported_check) return "xz integrity check of an unsupported kind";
  if (code == bio::lzma::data_error) return "corrupt xz data";
  return "not xz data (liblzma error " + std::to_string(code) + ")";
}

class XzByteSource : public io::ByteSourceBase {
 public:
  explicit XzByteSource(const std::string& path) : path_(path) {
    in_.push(bio::lzma_decompressor());
    in_.push(bio::file_source(path, std::ios::in | std::ios::binary));
    if (!in_.component<bio::file_source>(1)->is_open()) throw InputError(path + ": cannot open");
    in_.exceptions(std::ios::badbit);  // a decoding error must not read as the end of the file
  }

  // The parser takes a short read for the end of the file, so fill `size` bytes unless the
  // stream ends first.
  int read(char* buffer, int size) override {
    try {
      in_.read(buffer, size);
      return static_cast<int>(in_.gcount());
    } catch (const bio::lzma_error& e) {
      throw InputError(path_ + ": " + decoding_problem(e.error()));
    }
  }

 private:
  std::string path_;
  bio::filtering_istream in_;
};

}  // namespace

bool is_xz_path(std::string_view path) {
  constexpr std::string_view kSuffix = ".xz";
  return path.size() > kSuffix.size() && path.substr(path.size() - kSuffix.size()) == kSuffix;
}

std::unique_ptr<io::ByteSourceBase> open_xz_source(const std::string& path) {
  return std::make_unique<XzByteSource>(path);
}

}  // namespace kvb
