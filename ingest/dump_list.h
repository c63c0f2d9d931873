// Listing a dump's repositories, private to ingest/: the folders of a dump
// directory, or the repository folders inside a dump packed into a tar file
// (tar_archive.h). dump.cc imports what these list.
#pragma once

#include "fixgraph/engine/status.h"
#include "fixgraph/ingest/dump.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace fixgraph::ingest {

// The subfolders of `dir`, sorted by name; `ec` receives a listing error.
std::vector<std::filesystem::path> SortedSubdirs(const std::filesystem::path& dir,
                                                 std::error_code* ec);

// The repositories of the dump at `dump_dir` (a folder or a tar file), sorted
// by reference. A folder whose name cannot be an OWNER or REPO goes to
// `refused` (one error each) instead of stopping the listing. Errors: as
// ListDumpRepositories (dump.h), and TarArchive::Open's for an archive.
StatusOr<std::vector<DumpRepo>> ListRepositoryFolders(const std::string& dump_dir,
                                                      std::vector<Status>* refused);

}  // namespace fixgraph::ingest
