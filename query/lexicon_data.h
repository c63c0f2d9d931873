// The files of data/lexicon, embedded at build time (query/lexicon_embed.cmake)
// so the binary works from any directory. Private to query/.
#pragma once

#include <cstddef>

namespace fixgraph::query::embedded {

struct File {
  const char* name;  // file name, e.g. "synonyms.txt"
  const unsigned char* data;
  size_t size;
};

// kLexiconFileCount entries, then a terminating {nullptr, nullptr, 0}.
extern const File kLexiconFiles[];
extern const size_t kLexiconFileCount;

}  // namespace fixgraph::query::embedded
