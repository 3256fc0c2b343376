// Result CSVs kept xz-compressed (results/*/<record folders>/*.csv.xz: records of earlier runs,
// 10x smaller) are read as they decompress, so `kvbench report` and `kvbench compare` take them
// like plain files.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace io {
class ByteSourceBase;  // fast-cpp-csv-parser's input interface (libfccp/csv.h)
}

namespace kvb {

// True when `path` names an xz-compressed file (it ends in ".xz").
bool is_xz_path(std::string_view path);

// A byte source for fast-cpp-csv-parser that decompresses the xz file at `path` while the parser
// reads (Boost.Iostreams' lzma filter). Throws InputError naming the file if it cannot be opened,
// and from a read if the stream is not valid xz or is cut short.
std::unique_ptr<io::ByteSourceBase> open_xz_source(const std::string& path);

}  // namespace kvb
