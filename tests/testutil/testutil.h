// Helpers shared by the test suites.
#pragma once

#include <string>
#include <vector>

namespace fixgraph::testing {

// A fresh, empty directory under the system temp dir, removed when the
// object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Source tree root, the shared data folder, and the built fixgraph binary.
std::string SourceDir();
std::string SharedDir();
std::string BinaryPath();

// Writes `text` to `path`, creating parent folders.
void WriteFile(const std::string& path, const std::string& text);
std::string ReadFile(const std::string& path);

// Runs a command line through /bin/sh; returns the exit status and fills
// stdout (and stderr when given).
int RunCommand(const std::string& command, std::string* out, std::string* err = nullptr);

// Runs the built binary as `fixgraph --db DB ARGS`; like RunCommand.
int RunFixgraph(const std::string& db, const std::string& args, std::string* out,
                std::string* err = nullptr);
// Imports data/demo into the store at `db` (and links it); the exit status,
// with stderr in `err`.
int ImportDemo(const std::string& db, std::string* err);

// A log as a user pastes it into `ask`: 350 INFO lines of a video decoder
// around one ERROR line that holds the code -1610252272 of the demo's issue
// gitcode:Ascend/mindsdk-referenceapps#332.
std::string PastedDecoderLog();

// The headless browser of the browser tests, or "" when none is installed
// (those tests then skip; CI installs Debian's chromium).
std::string ChromiumPath();
// Runs that browser headless, as `chromium --headless=new --no-sandbox
// --disable-gpu ARGS` stopped after 120 s; like RunCommand.
int RunChromium(const std::string& args, std::string* out, std::string* err = nullptr);

}  // namespace fixgraph::testing
