// Outputs appear all at once or not at all: everything is written into a temporary sibling
// and renamed into place on commit(). Existing outputs are never replaced unless `force`.
#pragma once
#include <filesystem>
#include <string>

namespace kvb {

class StagedDirectory {
 public:
  // Throws InputError if `target` exists (and is non-empty) and !force.
  StagedDirectory(std::filesystem::path target, bool force);
  ~StagedDirectory();  // removes the temporary directory unless committed
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  const std::filesystem::path& path() const { return staging_; }  // write here
  void commit();  // atomically replaces `target`

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

// Writes `contents` to `target` via a temporary file and rename. Throws InputError if the
// target exists and !force.
void write_file_atomically(const std::filesystem::path& target, const std::string& contents, bool force);

}  // namespace kvb
