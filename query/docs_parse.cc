// Markdown and JSONL parsing for KG doc nodes; product name normalisation.
#include "docs_node.h"

#include "fixgraph/engine/json_field.h"
#include "fixgraph/engine/utf8.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fixgraph::query::docs {
namespace {

bool IsAsciiAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::string_view Trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  s = s.substr(b, e - b + 1);
  // Full-width space (U+3000) and no-break space (U+00A0) at either end.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::string_view sp : {std::string_view("\xE3\x80\x80"), std::string_view("\xC2\xA0")}) {
      if (s.size() >= sp.size() && s.substr(0, sp.size()) == sp) {
        s.remove_prefix(sp.size());
        changed = true;
      }
      if (s.size() >= sp.size() && s.substr(s.size() - sp.size()) == sp) {
        s.remove_suffix(sp.size());
        changed = true;
      }
    }
    size_t b2 = s.find_first_not_of(ws);
    if (b2 == std::string_view::npos) return {};
    s = s.substr(b2, s.find_last_not_of(ws) - b2 + 1);
  }
  return s;
}

// Removes every "<tag ...>" / "</tag>" whose name is in `names` (case-insensitive),
// keeping the text between.
std::string StripTags(std::string_view s, std::initializer_list<std::string_view> names) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '<') {
      size_t j = i + 1;
      if (j < s.size() && s[j] == '/') ++j;
      size_t k = j;
      while (k < s.size() && (IsAsciiAlnum(s[k]) || s[k] == '-')) ++k;
      std::string name = LowerAscii(s.substr(j, k - j));
      bool match = false;
      for (std::string_view n : names) match = match || name == n;
      size_t close = s.find('>', k);
      if (match && close != std::string_view::npos) {
        i = close + 1;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

// Drops Markdown backslash escapes ("\_" -> "_").
std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && std::ispunct(static_cast<unsigned char>(s[i + 1]))) {
      out.push_back(s[++i]);
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Heading text: anchors, attribute lists ("{: #id }"), escapes and a leading
// section number ("5 Online ...", "2.1 ...") removed.
std::string CleanHeading(std::string_view raw) {
  std::string s = StripTags(raw, {"a", "term", "span", "b", "strong", "em", "code", "br"});
  size_t attr = s.find("{:");
  if (attr != std::string::npos && s.find('}', attr) != std::string::npos) s.erase(attr);
  // Trailing closing hashes of ATX headings.
  while (!s.empty() && (s.back() == '#' || s.back() == ' ')) s.pop_back();
  s = Unescape(s);
  std::string_view v = Trim(s);
  size_t i = 0;
  while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.')) ++i;
  if (i > 0 && i < v.size() && v[i] == ' ') v.remove_prefix(i + 1);
  return std::string(Trim(v));
}

// Body text for indexing and snippets: images dropped, links reduced to their
// text, HTML-ish tags and escapes removed, blank-line runs collapsed.
std::string CleanBody(std::string_view raw) {
  std::string s;
  s.reserve(raw.size());
  size_t i = 0;
  while (i < raw.size()) {
    if (raw[i] == '!' && i + 1 < raw.size() && raw[i + 1] == '[') {
      size_t close = raw.find("](", i);
      size_t end = close == std::string_view::npos ? close : raw.find(')', close);
      size_t nl = raw.find('\n', i);
      if (end != std::string_view::npos && (nl == std::string_view::npos || end < nl)) {
        i = end + 1;
        continue;
      }
    }
    if (raw[i] == '[') {
      size_t close = raw.find("](", i);
      size_t nl = raw.find('\n', i);
      size_t end = close == std::string_view::npos ? close : raw.find(')', close);
      if (close != std::string_view::npos && end != std::string_view::npos &&
          (nl == std::string_view::npos || end < nl)) {
        s.append(raw.substr(i + 1, close - i - 1));
        i = end + 1;
        continue;
      }
    }
    s.push_back(raw[i++]);
  }
  s = StripTags(s, {"a", "term", "span", "br", "b", "strong", "em", "sup", "sub", "div", "p",
                    "code", "pre", "details", "summary", "u", "i", "img"});
  s = Unescape(s);
  std::string out;
  out.reserve(s.size());
  int blank = 0;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) nl = s.size();
    std::string_view line(s.data() + pos, nl - pos);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (Trim(line).empty()) {
      ++blank;
    } else {
      if (blank > 0 && !out.empty()) out.push_back('\n');
      blank = 0;
      out.append(line);
      out.push_back('\n');
    }
    pos = nl + 1;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool IsFence(std::string_view line, std::string* fence) {
  std::string_view t = line;
  size_t lead = 0;
  while (lead < t.size() && t[lead] == ' ') ++lead;
  t.remove_prefix(lead);
  for (std::string_view f : {std::string_view("```"), std::string_view("~~~")}) {
    if (t.substr(0, 3) == f) {
      if (fence->empty()) {
        *fence = std::string(f);
        return true;
      }
      if (*fence == f) {
        fence->clear();
        return true;
      }
    }
  }
  return false;
}

// Heading level (1..6) of an ATX heading line outside fences, else 0.
int HeadingLevel(std::string_view line, std::string_view* text) {
  if (line.empty() || line[0] != '#') return 0;
  size_t n = 0;
  while (n < line.size() && line[n] == '#') ++n;
  if (n > 6 || n >= line.size() || (line[n] != ' ' && line[n] != '\t')) return 0;
  *text = line.substr(n + 1);
  return static_cast<int>(n);
}

bool IsProductHeading(const std::string& heading) {
  std::string h = LowerAscii(heading);
  for (const char* k : {"支持的型号", "产品支持情况", "supported products", "supported devices",
                        "supported hardware", "hardware requirements", "硬件配套", "支持的产品"}) {
    if (h == k) return true;
  }
  return false;
}

// Product names listed in a product section: bullets, table rows (first cell,
// rows marked unsupported skipped), bare <term> lines, and prose.
void CollectProducts(std::string_view body, std::vector<std::string>* names) {
  size_t pos = 0;
  std::string fence;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string_view::npos) nl = body.size();
    std::string_view line = Trim(body.substr(pos, nl - pos));
    pos = nl + 1;
    if (IsFence(line, &fence) || !fence.empty() || line.empty()) continue;
    std::string item;
    if (line[0] == '|') {
      std::vector<std::string_view> cells;
      size_t c = 1;
      while (c < line.size()) {
        size_t bar = line.find('|', c);
        if (bar == std::string_view::npos) bar = line.size();
        cells.push_back(Trim(line.substr(c, bar - c)));
        c = bar + 1;
      }
      if (cells.empty()) continue;
      std::string first(cells[0]);
      if (first.find_first_not_of(":- ") == std::string::npos) continue;  // separator row
      std::string lf = LowerAscii(first);
      if (lf == "产品" || lf == "product" || lf == "products" || lf == "型号") continue;  // header
      if (cells.size() > 1) {
        std::string mark(cells[1]);
        if (mark == "x" || mark == "X" || mark.find("×") != std::string::npos ||
            mark.find("❌") != std::string::npos || mark == "否")
          continue;
      }
      item = first;
    } else if (line[0] == '-' || line[0] == '*' || line[0] == '+') {
      item = std::string(Trim(line.substr(1)));
    } else {
      item = std::string(line);
    }
    std::string clean = CleanBody(item);
    std::string_view t = Trim(clean);
    if (t.empty() || ProductTags(t).empty()) continue;
    names->emplace_back(t);
  }
}

void SortUnique(std::vector<std::string>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

// Position of ASCII token `tok` in `s` with non-alphanumeric neighbours
// (ASCII-wise; CJK neighbours count as boundaries), or npos.
size_t FindToken(std::string_view s, std::string_view tok, size_t from = 0) {
  for (size_t p = s.find(tok, from); p != std::string_view::npos; p = s.find(tok, p + 1)) {
    bool left = p == 0 || !IsAsciiAlnum(s[p - 1]);
    size_t e = p + tok.size();
    bool right = e >= s.size() || !IsAsciiAlnum(s[e]);
    if (left && right) return p;
  }
  return std::string_view::npos;
}

void TagsOfOne(std::string_view name, std::set<std::string>* tags) {
  std::string up(name);
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string low = LowerAscii(name);
  bool gen = false;
  // Concrete models "<digits><letter?>[/<digits>] A2|A3" and 300I/200I cards.
  for (std::string_view g : {std::string_view("A2"), std::string_view("A3")}) {
    for (size_t p = FindToken(up, g); p != std::string::npos; p = FindToken(up, g, p + 1)) {
      // Look back over "<model> " for a model number.
      size_t e = p;
      while (e > 0 && up[e - 1] == ' ') --e;
      size_t b = e;
      while (b > 0 && (IsAsciiAlnum(up[b - 1]) || up[b - 1] == '/')) --b;
      std::string model = up.substr(b, e - b);
      bool edge = model.find("200I/500") != std::string::npos;
      bool is_model = !model.empty() && std::isdigit(static_cast<unsigned char>(model[0]));
      if (is_model) tags->insert(model + " " + std::string(g));
      if (!edge) {
        tags->insert(std::string(g));
        gen = true;
      }
    }
  }
  // Chip names.
  if (FindToken(up, "910B") != std::string::npos || up.find("910B1") != std::string::npos ||
      up.find("910B2") != std::string::npos || up.find("910B3") != std::string::npos ||
      up.find("910B4") != std::string::npos) {
    tags->insert("A2");
    gen = true;
  }
  if (up.find("910_93") != std::string::npos || FindToken(up, "910C") != std::string::npos) {
    tags->insert("A3");
    gen = true;
  }
  if (up.find("950") != std::string::npos &&
      (up.find("ASCEND") != std::string::npos || up.find("ATLAS") != std::string::npos ||
       FindToken(up, "950") != std::string::npos || FindToken(up, "950DT") != std::string::npos ||
       FindToken(up, "950PR") != std::string::npos)) {
    tags->insert("950");
    gen = true;
  }
  for (std::string_view card : {std::string_view("300I DUO"), std::string_view("300I PRO"),
                                std::string_view("200I PRO"), std::string_view("300V PRO")}) {
    if (up.find(card) != std::string::npos) {
      std::string t(card);
      // "300I DUO" keeps upper case; "PRO" reads better as "Pro".
      if (t.size() > 3 && t.substr(t.size() - 3) == "PRO") t = t.substr(0, t.size() - 3) + "Pro";
      tags->insert(t);
      tags->insert("inference");
      gen = true;
    }
  }
  if (FindToken(up, "310P") != std::string::npos) {
    tags->insert("inference");
    gen = true;
  }
  if (FindToken(up, "910A") != std::string::npos || FindToken(up, "910PRO") != std::string::npos) {
    tags->insert("training");
    gen = true;
  }
  if (gen) return;
  bool atlas = up.find("ATLAS") != std::string::npos || up.find("ASCEND") != std::string::npos;
  if (!atlas) return;
  if (low.find("训练") != std::string::npos || low.find("training") != std::string::npos) {
    tags->insert("training");
  } else if (low.find("推理") != std::string::npos || low.find("inference") != std::string::npos) {
    tags->insert("inference");
  }
}

}  // namespace

std::vector<std::string> ProductTags(std::string_view text) {
  std::string s = StripTags(text, {"term"});
  std::set<std::string> tags;
  // Split "X/Atlas Y" (a '/' followed by a letter) but not "200I/500 A2".
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    bool cut = i == s.size();
    if (!cut && s[i] == '/') {
      size_t j = i + 1;
      while (j < s.size() && s[j] == ' ') ++j;
      cut = j < s.size() && std::isalpha(static_cast<unsigned char>(s[j]));
    }
    if (cut) {
      TagsOfOne(Trim(std::string_view(s).substr(start, i - start)), &tags);
      start = i + 1;
    }
  }
  return std::vector<std::string>(tags.begin(), tags.end());
}

bool IsProductFamily(std::string_view tag) {
  return std::find(kProductFamilies.begin(), kProductFamilies.end(), tag) != kProductFamilies.end();
}

std::string Slug(std::string_view heading) {
  std::string out;
  bool dash = false;
  for (unsigned char c : heading) {
    if (c >= 0x80 || std::isalnum(c) || c == '_' || c == '.') {
      if (dash && !out.empty()) out.push_back('-');
      dash = false;
      out.push_back(static_cast<char>(c >= 0x80 ? c : std::tolower(c)));
    } else {
      dash = true;  // spaces, '-' and other punctuation become one '-'
    }
  }
  return out;
}

std::string Utf8Truncate(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  return std::string(Utf8Prefix(s, max_bytes)) + "...";
}

namespace {

// Adds to *names the products listed under "### Supported Devices" (or any
// product heading of level 3 or deeper) in one H2 section's body, up to the
// next heading; headings inside code fences do not count.
void CollectSubheadingProducts(std::string_view body, std::vector<std::string>* names) {
  std::string fence2;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    if (nl == std::string_view::npos) nl = body.size();
    std::string_view line = body.substr(pos, nl - pos);
    pos = nl + 1;
    bool in_fence = !fence2.empty();
    if (IsFence(line, &fence2) || in_fence) continue;
    std::string_view ht;
    if (HeadingLevel(line, &ht) >= 3 && IsProductHeading(CleanHeading(ht))) {
      size_t end = pos;
      while (end < body.size()) {
        size_t e2 = body.find('\n', end);
        if (e2 == std::string_view::npos) e2 = body.size();
        std::string_view l2 = body.substr(end, e2 - end);
        std::string_view ht2;
        if (HeadingLevel(l2, &ht2) > 0) break;
        end = e2 + 1;
      }
      CollectProducts(body.substr(pos, std::min(end, body.size()) - pos), names);
    }
  }
}

}  // namespace

std::vector<DocNode> ParseMarkdown(std::string_view rel_path, std::string_view text) {
  // Normalise: BOM, CRLF.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::string norm;
  norm.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    norm.push_back(text[i] == '\r' ? '\n' : text[i]);
  }
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= norm.size();) {
    size_t nl = norm.find('\n', pos);
    if (nl == std::string::npos) nl = norm.size();
    lines.emplace_back(norm.data() + pos, nl - pos);
    pos = nl + 1;
  }
  size_t first = 0;
  // YAML front matter.
  while (first < lines.size() && Trim(lines[first]).empty()) ++first;
  if (first < lines.size() && Trim(lines[first]) == "---") {
    for (size_t i = first + 1; i < lines.size(); ++i) {
      if (Trim(lines[i]) == "---") {
        first = i + 1;
        break;
      }
    }
  }

  struct Sec {
    std::string heading;
    std::string body;
  };
  std::string title;
  std::vector<Sec> secs(1);  // secs[0]: lead text before the first H2
  std::string fence;
  for (size_t i = first; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    bool in_fence = !fence.empty();
    bool fence_line = IsFence(line, &fence);
    std::string_view htext;
    int level = (in_fence || fence_line) ? 0 : HeadingLevel(line, &htext);
    if (level == 1 && title.empty()) {
      title = CleanHeading(htext);
      continue;
    }
    if (level == 2) {
      secs.push_back(Sec{CleanHeading(htext), {}});
      continue;
    }
    secs.back().body.append(line);
    secs.back().body.push_back('\n');
  }
  std::string path(rel_path);
  if (title.empty()) {
    size_t slash = path.find_last_of('/');
    title = path.substr(slash == std::string::npos ? 0 : slash + 1);
    if (title.size() > 3 && title.substr(title.size() - 3) == ".md") title.resize(title.size() - 3);
  }

  std::vector<std::string> product_names;
  for (const Sec& s : secs) {
    if (IsProductHeading(s.heading)) CollectProducts(s.body, &product_names);
    // "### Supported Devices" below an H2.
    CollectSubheadingProducts(s.body, &product_names);
  }
  std::vector<std::string> products;
  for (const std::string& n : product_names) {
    for (std::string& t : ProductTags(n)) products.push_back(std::move(t));
  }
  SortUnique(&products);
  {
    std::vector<std::string> seen;
    std::vector<std::string> names;
    for (const std::string& n : product_names) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    product_names = std::move(names);
  }

  std::vector<DocNode> nodes;
  std::set<std::string> used;
  for (size_t i = 0; i < secs.size(); ++i) {
    const Sec& s = secs[i];
    if (i > 0 && IsProductHeading(s.heading)) continue;
    std::string body = CleanBody(s.body);
    if (Trim(body).empty() && (i == 0 || s.heading.empty())) continue;
    DocNode n;
    n.title = title;
    n.section = s.heading;
    n.text = body.empty() ? s.heading : body;
    n.products = products;
    n.product_names = product_names;
    std::string slug = i == 0 ? "" : Slug(s.heading);
    if (i > 0 && slug.empty()) slug = "section";
    std::string id = slug.empty() ? path : path + "#" + slug;
    for (int k = 2; used.count(id) > 0; ++k) id = path + "#" + slug + "-" + std::to_string(k);
    used.insert(id);
    n.id = id;
    nodes.push_back(std::move(n));
  }
  if (nodes.empty()) {
    // A page with a title only still names something.
    DocNode n;
    n.id = path;
    n.title = title;
    n.text = title;
    n.products = products;
    n.product_names = product_names;
    nodes.push_back(std::move(n));
  }
  return nodes;
}

StatusOr<std::vector<DocNode>> ParseJsonl(std::string_view file_label, std::string_view text) {
  std::vector<DocNode> nodes;
  std::set<std::string> ids;
  size_t line_no = 0;
  size_t pos = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = Trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty()) continue;
    std::string where = std::string(file_label) + ":" + std::to_string(line_no);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      std::string what = e.what();
      size_t colon = what.find("] ");
      return Status::Corruption(where + ": malformed JSON: " +
                                (colon == std::string::npos ? what : what.substr(colon + 2)));
    }
    if (!j.is_object()) return Status::Corruption(where + ": expected a JSON object");
    auto str = [&](const char* key, bool required, std::string* out) -> Status {
      auto it = j.find(key);
      if (it == j.end() || it->is_null()) {
        if (required) return Status::Corruption(where + ": missing \"" + key + "\"");
        return Status::OK();
      }
      if (!it->is_string()) return Status::Corruption(where + ": \"" + key + "\" must be a string");
      *out = it->get<std::string>();
      if (required && Trim(*out).empty())
        return Status::Corruption(where + ": \"" + key + "\" is empty");
      return Status::OK();
    };
    DocNode n;
    for (Status s :
         {str("id", true, &n.id), str("title", true, &n.title), str("text", true, &n.text),
          str("section", false, &n.section), str("url", false, &n.url)}) {
      if (!s.ok()) return s;
    }
    if (!ids.insert(n.id).second)
      return Status::Corruption(where + ": duplicate id \"" + n.id + "\"");
    if (auto it = j.find("products"); it != j.end() && !it->is_null()) {
      if (!it->is_array()) return Status::Corruption(where + ": \"products\" must be an array");
      for (const auto& p : *it) {
        if (!p.is_string()) return Status::Corruption(where + ": \"products\" must hold strings");
        std::string name = p.get<std::string>();
        n.product_names.push_back(name);
        std::vector<std::string> tags = ProductTags(name);
        if (tags.empty()) {
          // Already a short tag ("A2", "inference") or an unknown product:
          // keep it as written.
          std::string lt = LowerAscii(name);
          if (lt == "training" || lt == "inference")
            tags.push_back(lt);
          else
            tags.emplace_back(Trim(name));
        }
        for (std::string& t : tags) n.products.push_back(std::move(t));
      }
      SortUnique(&n.products);
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

nlohmann::json NodeToJson(const DocNode& n) {
  return {{"id", n.id},
          {"title", n.title},
          {"section", n.section},
          {"text", n.text},
          {"products", n.products},
          {"product_names", n.product_names},
          {"url", n.url},
          {"origin", n.origin},
          {"page_kind", n.page_kind},
          {"section_kind", n.section_kind},
          {"defines", n.defines}};
}

DocNode NodeFromJson(const nlohmann::json& j) {
  DocNode n;
  auto get = [&](const char* k) { return StringOrEmpty(j, k); };
  auto list = [&](const char* k) {
    std::vector<std::string> v;
    if (j.contains(k) && j[k].is_array())
      for (const auto& x : j[k])
        if (x.is_string()) v.push_back(x.get<std::string>());
    return v;
  };
  n.id = get("id");
  n.title = get("title");
  n.section = get("section");
  n.text = get("text");
  n.products = list("products");
  n.product_names = list("product_names");
  n.url = get("url");
  n.origin = get("origin");
  n.page_kind = get("page_kind");
  n.section_kind = get("section_kind");
  n.defines = list("defines");
  return n;
}

}  // namespace fixgraph::query::docs
