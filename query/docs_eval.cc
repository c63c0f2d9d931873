// Scoring a doc question set (issue 22): top-1, top-3 and MRR per split.
#include "fixgraph/query/docs.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

namespace fixgraph::query {

bool DocIdIsPage(std::string_view id, std::string_view page) {
  std::string_view p = id.substr(0, id.find('#'));
  if (p.size() < page.size()) return false;
  if (p.substr(p.size() - page.size()) != page) return false;
  return p.size() == page.size() || p[p.size() - page.size() - 1] == '/';
}

StatusOr<std::vector<DocQuestion>> ReadDocQuestions(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument(path + ": not JSON");
  const nlohmann::json* list = &j;
  if (j.is_object()) {
    if (!j.contains("questions")) return Status::InvalidArgument(path + ": no \"questions\" array");
    list = &j["questions"];
  }
  if (!list->is_array()) return Status::InvalidArgument(path + ": \"questions\" must be an array");
  std::vector<DocQuestion> out;
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& q = (*list)[i];
    std::string where = path + ": question " + std::to_string(i);
    if (!q.is_object()) return Status::InvalidArgument(where + ": expected an object");
    DocQuestion d;
    d.id = static_cast<int>(i);
    if (auto id = q.find("id"); id != q.end() && !id->is_null()) {
      if (!id->is_number_integer())
        return Status::InvalidArgument(where + ": \"id\" must be an integer");
      d.id = id->get<int>();
    }
    if (!q.contains("question") || !q["question"].is_string() ||
        q["question"].get<std::string>().empty())
      return Status::InvalidArgument(where + ": missing \"question\"");
    d.question = q["question"].get<std::string>();
    d.split = q.contains("split") && q["split"].is_string() ? q["split"].get<std::string>() : "dev";
    if (!q.contains("pages") || !q["pages"].is_array() || q["pages"].empty())
      return Status::InvalidArgument(where + ": \"pages\" must be a non-empty array");
    for (const auto& p : q["pages"]) {
      if (!p.is_string() || p.get<std::string>().empty())
        return Status::InvalidArgument(where + ": \"pages\" must hold page paths");
      d.pages.push_back(p.get<std::string>());
    }
    out.push_back(std::move(d));
  }
  return out;
}

StatusOr<DocEvalReport> EvaluateDocQuestions(
    const std::vector<DocQuestion>& questions,
    const std::function<StatusOr<std::vector<std::string>>(const std::string&)>& rank) {
  DocEvalReport report;
  std::map<std::string, DocEvalSplit> sums;
  std::vector<double> ms;
  for (const DocQuestion& q : questions) {
    auto t0 = std::chrono::steady_clock::now();
    auto ids = rank(q.question);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!ids.ok()) return ids.status().WithContext("question " + std::to_string(q.id));
    size_t found = 0;  // 1-based rank, 0 = not in the first 10
    for (size_t i = 0; i < ids->size() && i < 10 && found == 0; ++i) {
      for (const std::string& p : q.pages)
        if (DocIdIsPage((*ids)[i], p)) found = i + 1;
    }
    for (const std::string& split : {q.split, std::string("all")}) {
      DocEvalSplit& s = sums[split];
      ++s.questions;
      if (found == 1) s.top1 += 1;
      if (found >= 1 && found <= 3) s.top3 += 1;
      if (found >= 1) s.mrr += 1.0 / static_cast<double>(found);
    }
    if (found != 1) {
      report.misses.push_back(q.split + " #" + std::to_string(q.id) + " rank " +
                              (found ? std::to_string(found) : std::string(">10")) + ": " +
                              q.question + " -> " +
                              (ids->empty() ? std::string("(nothing)") : (*ids)[0]));
    }
  }
  // dev and test first, any other split the file names, then all.
  std::vector<std::string> names = {"dev", "test"};
  for (const auto& [name, s] : sums)
    if (name != "dev" && name != "test" && name != "all") names.push_back(name);
  names.emplace_back("all");
  for (const std::string& name : names) {
    auto it = sums.find(name);
    if (it == sums.end()) continue;
    DocEvalSplit s = it->second;
    double n = static_cast<double>(std::max<size_t>(1, s.questions));
    s.top1 /= n;
    s.top3 /= n;
    s.mrr /= n;
    report.splits.emplace_back(name, s);
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    report.p50_ms = ms[ms.size() / 2];
    report.p99_ms = ms[std::min(ms.size() - 1, (ms.size() * 99) / 100)];
  }
  return report;
}

}  // namespace fixgraph::query
