#include "testutil/testutil.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fixgraph::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "fixgraph-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string SourceDir() { return FIXGRAPH_SOURCE_DIR; }
std::string SharedDir() {
  const char* env = std::getenv("FIXGRAPH_SHARED_DIR");
  return env != nullptr && *env != '\0' ? env : FIXGRAPH_SHARED_DIR;
}
std::string BinaryPath() { return FIXGRAPH_BINARY; }

void WriteFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream f(path, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int RunCommand(const std::string& command, std::string* out, std::string* err) {
  TempDir tmp;
  std::string out_file = tmp / "out", err_file = tmp / "err";
  std::string full = "(" + command + ") >" + out_file + " 2>" + err_file;
  int rc = std::system(full.c_str());
  if (out) *out = ReadFile(out_file);
  if (err) *err = ReadFile(err_file);
  if (rc == -1) return -1;
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
}

int RunFixgraph(const std::string& db, const std::string& args, std::string* out,
                std::string* err) {
  return RunCommand(BinaryPath() + " --db " + db + " " + args, out, err);
}

int ImportDemo(const std::string& db, std::string* err) {
  std::string out;
  return RunFixgraph(db, "import " + SourceDir() + "/data/demo", &out, err);
}

std::string PastedDecoderLog() {
  std::string log;
  for (int i = 0; i < 300; ++i)
    log += "[INFO] 2026-03-01 10:00:" + std::to_string(10 + i % 50) + ".000 [worker] step " +
           std::to_string(i) + " video frame decoded, queue depth 3\n";
  log += "[ERROR] 2026-03-01 10:01:00.000 [dvpp] vdec create channel failed ret=-1610252272\n";
  for (int i = 0; i < 50; ++i) log += "[INFO] shutting down stream " + std::to_string(i) + "\n";
  return log;
}

std::string ChromiumPath() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

int RunChromium(const std::string& args, std::string* out, std::string* err) {
  return RunCommand(
      "timeout 120 " + ChromiumPath() + " --headless=new --no-sandbox --disable-gpu " + args, out,
      err);
}

}  // namespace fixgraph::testing
