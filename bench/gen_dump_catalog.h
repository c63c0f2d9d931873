// gen_dump_catalog.h: the users and labels every repository of a dump shares, rendered once in
// the platform's JSON shape: kHumanUsers people (logins and Chinese names from the vocabulary;
// the first kMaintainers maintain every repository), then the bot that closes stale issues.
#pragma once

#include "gen_dump_format.h"

#include <string>
#include <vector>

namespace gen_dump {

struct Catalog {
  std::vector<Json> users;  // kHumanUsers people, then the bot
  std::vector<std::string> logins, names;
  std::vector<Json> labels;
};

Catalog BuildCatalog(Platform platform);

}  // namespace gen_dump
