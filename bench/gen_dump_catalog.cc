// gen_dump_catalog.cc: users and labels (contract in gen_dump_catalog.h).

#include "gen_dump_catalog.h"

#include "gen_dump_random.h"
#include "gen_dump_vocab.h"

#include <iterator>

namespace gen_dump {

Catalog BuildCatalog(Platform platform) {
  Catalog c;
  for (uint32_t u = 0; u <= kHumanUsers; ++u) {
    std::string login, name;
    if (u == kBotUser) {
      login = platform == Platform::kGitHub ? "github-actions[bot]" : "ascend-robot";
      name = login;
    } else {
      const NamePart& sur = kSurnames[u % std::size(kSurnames)];
      const NamePart& given = kGivenNames[u / std::size(kSurnames)];
      login = std::string(sur.latin) + std::string(given.latin) +
              std::string(kLoginSuffixes[Mix64(u) % std::size(kLoginSuffixes)]);
      name = std::string(sur.han) + std::string(given.han);
    }
    Json user;
    switch (platform) {
      case Platform::kGitCode:
        user["id"] = HexId(StreamKey(0, 0, kTagUser, u), 24);
        user["login"] = login;
        user["name"] = name;
        break;
      case Platform::kGitee:
        user["id"] = 1'500'000 + int64_t{u} * 7919;
        user["login"] = login;
        user["name"] = name;
        break;
      case Platform::kGitHub:
        user["login"] = login;
        user["id"] = 40'000'000 + int64_t{u} * 104'729;
        user["type"] = u == kBotUser ? "Bot" : "User";
        break;
    }
    c.users.push_back(std::move(user));
    c.logins.push_back(std::move(login));
    c.names.push_back(std::move(name));
  }
  for (uint32_t l = 0; l < kLabelCount; ++l) {
    std::string color(kLabels[l].color);
    if (platform == Platform::kGitCode) color.insert(0, "#");
    if (platform == Platform::kGitHub) color = Lowercase(color);
    Json label;
    label["id"] = 300'000 + int64_t{l} * 11;
    label["name"] = kLabels[l].name;
    label["color"] = color;
    c.labels.push_back(std::move(label));
  }
  return c;
}

}  // namespace gen_dump
