// A run's output folder as rtdg owns it: a manifest of every file and folder rtdg wrote there,
// and a lock held for the run's lifetime (docs/running.md, "Output folder").
//
//   <dir>/.rtdg-manifest   an append-only log, one line per change:
//                            rtdg-manifest 1                       (first line)
//                            + <kind> <step> <time> <path>         (claimed: about to be written)
//                            - <path>                              (deleted by rtdg)
//                          <path> is relative to <dir>; a later "+" of a path replaces its record.
//   <dir>/.rtdg-lock       the pid of the run writing into <dir>; held with flock() while it runs
//
// rtdg writes a file only after claiming it (a path that exists and is not in the manifest is
// refused), and deletes only claimed files: --overwrite, checkpoint rotation and the truncation of
// a restart from an earlier point go through remove(), never through a recursive delete.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rtdg::runner {

class RunFolderError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class RunFolder {
public:
  struct Entry {
    std::string kind;  // config, summary, pvd, probe, snapshot, checkpoint, farfield, mesh, folder
    long long step = 0;
    double time = 0;
  };

  static constexpr const char* kManifest = ".rtdg-manifest";
  static constexpr const char* kLock = ".rtdg-lock";

  // Creates `dir` when missing and takes its lock. Throws RunFolderError naming the pid of the
  // run that holds it, or the path when `dir` is not a folder or the lock cannot be made.
  explicit RunFolder(std::filesystem::path dir);
  // Releases the lock and removes the lock file; a folder this object created and left empty
  // is removed too (a run that failed at set-up leaves nothing behind).
  ~RunFolder();
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  bool has_manifest() const { return has_manifest_; }
  // The files and folders rtdg wrote and has not deleted, by path relative to dir().
  const std::map<std::string, Entry>& entries() const { return entries_; }
  bool owns(const std::filesystem::path& relative) const;

  // Paths under dir() that rtdg did not write, where they would be in its way: top-level entries
  // named like one of `names` (the files and folders a run writes at the top) and everything
  // inside the folders rtdg created or is about to (`names` ending in '/'). Sorted.
  std::vector<std::filesystem::path> foreign(const std::vector<std::string>& names) const;

  // A new run: refuses (RunFolderError with a path and what to do) when the folder holds files
  // of an earlier run, unless `overwrite`, and always when foreign() finds anything. With
  // `overwrite`, deletes every file in the manifest and the folders it lists (then empty), and
  // starts a new manifest.
  void prepare_new_run(const std::vector<std::string>& names, bool overwrite);

  // Records that rtdg is about to write `relative` (a file, or a folder ending in '/', created
  // here). Throws RunFolderError when the path exists and is not rtdg's.
  void claim(const std::string& relative, const std::string& kind, long long step = 0, double time = 0);
  // Creates the folder `relative` (claimed) unless it exists and is rtdg's.
  void create_folder(const std::string& relative);
  // Deletes the file `relative` when the manifest lists it (and records that); returns whether
  // it was rtdg's. A file rtdg did not write is left alone.
  bool remove(const std::string& relative);

  // The manifest's entries of `kind` (e.g. "checkpoint"), ordered by step.
  std::vector<std::pair<std::string, Entry>> of_kind(const std::string& kind) const;

private:
  void append(const std::string& line);
  void read_manifest();

  std::filesystem::path dir_;
  bool created_ = false;
  bool has_manifest_ = false;
  int lock_fd_ = -1;
  std::map<std::string, Entry> entries_;
};

// The key of an override "key=value" (spaces around the key dropped), e.g. "run.output_dir".
std::string override_key(const std::string& override_text);

}  // namespace rtdg::runner
