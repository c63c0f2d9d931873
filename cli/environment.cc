#include "environment.h"

#include "fixgraph/engine/store.h"
#include "fixgraph/engine/time.h"

#include <algorithm>
#include <cstdlib>

namespace fixgraph::cli {

std::string EnvironmentValue(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v == nullptr ? std::string() : std::string(v);
}

Environment ReadEnvironment(std::ostream* debug) {
  Environment env;
  env.tz = EnvironmentValue("FIXGRAPH_TZ");
  if (std::string at = EnvironmentValue("FIXGRAPH_CRASH_AT"); !at.empty())
    env.crash_at = std::strtol(at.c_str(), nullptr, 10);
  env.crash_count = !EnvironmentValue("FIXGRAPH_CRASH_COUNT").empty();
  if (std::string b = EnvironmentValue("FIXGRAPH_HTTP_BACKOFF_MS"); !b.empty())
    env.http_backoff_ms = std::atoi(b.c_str());
  if (std::string t = EnvironmentValue("FIXGRAPH_LINK_THREADS"); !t.empty())
    env.link_threads = static_cast<unsigned>(std::strtoul(t.c_str(), nullptr, 10));
  if (std::string b = EnvironmentValue("FIXGRAPH_LINK_BATCH"); !b.empty())
    env.link_batch = std::strtoul(b.c_str(), nullptr, 10);
  if (std::string t = EnvironmentValue("FIXGRAPH_INDEX_THREADS"); !t.empty())
    env.index_threads =
        static_cast<unsigned>(std::min<unsigned long>(std::strtoul(t.c_str(), nullptr, 10), 8));
  env.docs.mode = EnvironmentValue("FIXGRAPH_KG_MODE");
  env.docs.url = EnvironmentValue("FIXGRAPH_KG_URL");
  env.docs.api_key = EnvironmentValue("FIXGRAPH_KG_API_KEY");
  env.docs.timeout = EnvironmentValue("FIXGRAPH_KG_TIMEOUT");
  env.docs.local.tune = EnvironmentValue("FIXGRAPH_KG_TUNE");
  if (std::getenv("FIXGRAPH_KG_DEBUG") != nullptr) env.docs.local.debug = debug;
  return env;
}

void ApplyEnvironment(const Environment& env) {
  SetDisplayOffsetMinutes(DisplayOffsetFromSetting(env.tz));
  SetCrashPoints(env.crash_at, env.crash_count);
}

}  // namespace fixgraph::cli
