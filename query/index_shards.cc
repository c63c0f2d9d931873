#include "index_shards.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace fixgraph::query {
namespace {

std::string Trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// The database of one shard, its remote calls bounded.
Xapian::Database OpenShard(const ShardLine& s) {
  if (s.remote)
    return Xapian::Remote::open(s.host, s.port, kRemoteTimeoutMs, kRemoteConnectTimeoutMs);
  return Xapian::Database(s.path);
}

}  // namespace

bool IsStubFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

StatusOr<std::vector<ShardLine>> ReadStub(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read stub " + path);
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  std::vector<ShardLine> out;
  std::string raw;
  for (size_t n = 1; std::getline(in, raw); ++n) {
    const std::string line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find_first_of(" \t");
    const std::string kind = line.substr(0, sp);
    const std::string arg = sp == std::string::npos ? std::string() : Trim(line.substr(sp));
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument(path + ":" + std::to_string(n) + ": " + why + " (got \"" +
                                     line + "\")");
    };
    ShardLine s;
    s.line = n;
    if (kind == "remote") {
      const size_t colon = arg.rfind(':');
      if (arg.empty() || arg[0] == ':' || colon == std::string::npos || colon + 1 == arg.size())
        return bad("expected \"remote HOST:PORT\" (a program after ':' is not supported)");
      const std::string port = arg.substr(colon + 1);
      if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
          std::stoul(port) == 0 || std::stoul(port) > 65535)
        return bad("port must be a number from 1 to 65535");
      s.remote = true;
      s.host = arg.substr(0, colon);
      s.port = static_cast<unsigned>(std::stoul(port));
      s.name = "remote " + arg;
    } else if (kind == "auto" || kind == "glass") {
      if (arg.empty()) return bad("expected \"" + kind + " PATH\"");
      std::filesystem::path p(arg);
      s.path = p.is_absolute() ? p.string() : (base / p).string();
      s.name = kind + " " + arg;
    } else {
      return bad(R"(expected "remote HOST:PORT", "auto PATH" or "glass PATH")");
    }
    s.name = "shard " + std::to_string(out.size()) + " (" + s.name + ")";
    out.push_back(std::move(s));
  }
  if (out.empty()) return Status::InvalidArgument("stub " + path + " lists no shard");
  return out;
}

StatusOr<OpenedIndex> OpenIndex(const std::string& path, const std::string& what,
                                const std::vector<size_t>& skip) {
  OpenedIndex out;
  if (!IsStubFile(path)) {
    try {
      out.db = Xapian::Database(path);
      out.shards = 1;
      return out;
    } catch (const Xapian::Error& e) {
      return Status::IOError(what + " " + path + ": " + e.get_description());
    }
  }
  auto lines = ReadStub(path);
  if (!lines.ok()) return lines.status().WithContext(what);
  out.sharded = true;
  out.shards = lines->size();
  std::vector<Xapian::Database> opened(lines->size());
  std::vector<bool> up(lines->size(), false);
  int first_up = -1;
  for (size_t i = 0; i < lines->size(); ++i) {
    if (std::find(skip.begin(), skip.end(), i) != skip.end()) {
      out.missing.push_back((*lines)[i].name + ": down a moment ago");
      out.missing_shards.push_back(i);
      continue;
    }
    try {
      opened[i] = OpenShard((*lines)[i]);
      up[i] = true;
      if (first_up < 0) first_up = static_cast<int>(i);
    } catch (const Xapian::Error& e) {
      out.missing.push_back((*lines)[i].name + ": " + e.get_description());
      out.missing_shards.push_back(i);
    }
  }
  if (first_up < 0) {
    std::string all;
    for (const std::string& m : out.missing) all += (all.empty() ? "" : "; ") + m;
    return Status::Unavailable(what + " " + path + ": no shard could be opened: " + all);
  }
  try {
    for (size_t i = 0; i < lines->size(); ++i) {
      if (up[i]) {
        out.db.add_database(opened[i]);
        continue;
      }
      // An empty stand-in keeps the other shards' docids and, holding the
      // metadata of a shard that is up, the index's metadata.
      // (InMemory is deprecated in Xapian 1.4 but is the only backend
      // without files; nothing is written to it but the metadata.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      Xapian::WritableDatabase blank = Xapian::InMemory::open();
#pragma GCC diagnostic pop
      const Xapian::Database& from = opened[static_cast<size_t>(first_up)];
      for (auto k = from.metadata_keys_begin(); k != from.metadata_keys_end(); ++k)
        blank.set_metadata(*k, from.get_metadata(*k));
      blank.commit();
      out.db.add_database(blank);
    }
  } catch (const Xapian::Error& e) {
    return Status::Unavailable(what + " " + path + ": " + e.get_description());
  }
  return out;
}

}  // namespace fixgraph::query
