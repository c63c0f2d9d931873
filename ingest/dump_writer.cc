#include "dump_writer.h"

#include <filesystem>
#include <fstream>

namespace fixgraph::ingest {

namespace fs = std::filesystem;

DumpWriter::DumpWriter(const std::string& dump_dir, const RepoRef& repo)
    : root_(dump_dir + "/" + PlatformName(repo.platform) + "/" + repo.owner + "/" + repo.name) {}

Status DumpWriter::WriteJson(const std::string& path, const nlohmann::json& j) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return Status::IOError(path + ": " + ec.message());
  // Write beside, then rename: a reader never sees half a file.
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IOError(tmp + ": cannot open for writing");
    out << j.dump(1) << "\n";
    if (!out) return Status::IOError(tmp + ": write failed");
  }
  fs::rename(tmp, path, ec);
  if (ec) return Status::IOError(path + ": " + ec.message());
  return Status::OK();
}

Status DumpWriter::SetRepository(const nlohmann::json& repo) {
  return WriteJson(root_ + "/repo.json", repo);
}

void DumpWriter::AddListItem(const std::string& list, const std::string& key,
                             const nlohmann::json& item) {
  List& l = lists_[list];
  l.used = true;
  auto [it, inserted] = l.index.emplace(key, l.items.size());
  if (inserted) {
    l.items.push_back(item);
  } else {
    l.items[it->second] = item;
  }
}

Status DumpWriter::WriteDetail(const std::string& folder, const std::string& number,
                               const std::string& file, const nlohmann::json& array) {
  if (!array.is_array() || array.empty()) return Status::OK();
  return WriteJson(root_ + "/" + folder + "/" + number + "/" + file, array);
}

Status DumpWriter::Finish() {
  for (const char* name : {"issues", "pulls"}) {
    auto it = lists_.find(name);
    if (it == lists_.end() || !it->second.used) continue;
    nlohmann::json arr = nlohmann::json::array();
    for (auto& item : it->second.items) arr.push_back(std::move(item));
    FG_RETURN_IF_ERROR(WriteJson(root_ + "/" + name + ".json", arr));
  }
  lists_.clear();
  return Status::OK();
}

}  // namespace fixgraph::ingest
