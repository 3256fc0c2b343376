#include "analysis/staged_output.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <system_error>
#include <vector>

#include "analysis/input_error.h"

namespace kvb {
namespace fs = std::filesystem;

namespace {

fs::path parent_of(const fs::path& p) {
  fs::path parent = fs::absolute(p).parent_path();
  return parent.empty() ? fs::current_path() : parent;
}

fs::path make_temp_dir(const fs::path& target) {
  std::string pattern = (parent_of(target) / (std::string(".") + target.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    throw InputError(target.string() + ": cannot create a temporary directory beside it: " +
                     std::generic_category().message(errno));
  }
  return fs::path(buf.data());
}

}  // namespace

StagedDirectory::StagedDirectory(fs::path target, bool force) : target_(std::move(target)) {
  std::error_code ec;
  if (target_.filename().empty()) target_ = target_.parent_path();  // "out/" -> "out"
  if (fs::exists(target_, ec)) {
    if (!fs::is_directory(target_, ec)) throw InputError(target_.string() + ": exists and is not a directory");
    if (!fs::is_empty(target_, ec) && !force) {
      throw InputError(target_.string() + ": output directory exists and is not empty (use --force to replace it)");
    }
  }
  if (!fs::is_directory(parent_of(target_), ec)) {
    throw InputError(target_.string() + ": parent directory does not exist");
  }
  staging_ = make_temp_dir(target_);
}

StagedDirectory::~StagedDirectory() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

void StagedDirectory::commit() {
  std::error_code ec;
  fs::path backup;
  if (fs::exists(target_, ec)) {
    backup = make_temp_dir(target_);
    fs::remove(backup);
    fs::rename(target_, backup);
  }
  fs::rename(staging_, target_, ec);
  if (ec) {
    if (!backup.empty()) fs::rename(backup, target_);  // put the old output back
    throw std::runtime_error(target_.string() + ": cannot move the finished output into place: " + ec.message());
  }
  committed_ = true;
  if (!backup.empty()) fs::remove_all(backup, ec);
}

void write_file_atomically(const fs::path& target, const std::string& contents, bool force) {
  std::error_code ec;
  if (fs::exists(target, ec) && !force) {
    throw InputError(target.string() + ": output file exists (use --force to replace it)");
  }
  if (!fs::is_directory(parent_of(target), ec)) throw InputError(target.string() + ": parent directory does not exist");
  const fs::path temp = parent_of(target) / (std::string(".") + target.filename().string() + ".tmp-" + std::to_string(getpid()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << contents;
    out.close();
    if (!out) {
      fs::remove(temp, ec);
      throw std::runtime_error(temp.string() + ": write failed");
    }
  }
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw std::runtime_error(target.string() + ": cannot rename the finished output into place");
  }
}

}  // namespace kvb
