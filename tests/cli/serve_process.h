// Test helpers for the serve, mcp and browser tests: run the fixgraph binary
// as a child process (a server on a free loopback port, or an MCP server on
// pipes) and talk to it.
#pragma once

#include "testutil/testutil.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::testing {

// A dump holding some repositories of data/demo ("gitcode/Ascend/FlashGen"),
// copied under dir/name.
inline std::string PartialDemo(const TempDir& dir, const std::string& name,
                               const std::vector<std::string>& repos) {
  std::string root = dir / name;
  for (const std::string& r : repos) {
    std::string dst = root + "/" + r;
    EXPECT_EQ(
        RunCommand("mkdir -p " + dst + " && cp -r " + SourceDir() + "/data/demo/" + r + "/. " + dst,
                   nullptr),
        0);
  }
  return root;
}

// fork + exec of `args` (argv[0] is the binary) with extra environment
// variables; stdin/stdout from the given fds (-1: /dev/null), stderr to a file.
inline pid_t Spawn(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env, int stdin_fd, int stdout_fd,
                   const std::string& stderr_path) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int null_fd = open("/dev/null", O_RDWR);
  dup2(stdin_fd >= 0 ? stdin_fd : null_fd, 0);
  dup2(stdout_fd >= 0 ? stdout_fd : null_fd, 1);
  int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(err, 2);
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  _exit(127);
}

// `fixgraph --db DB serve --listen 127.0.0.1:0 EXTRA...`, waiting until it listens.
class ServeProcess {
 public:
  ServeProcess(const std::string& db, const std::vector<std::string>& extra = {},
               const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> args{BinaryPath(), "--db", db, "serve", "--listen", "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    stderr_path_ = log_dir_ / "serve.err";
    pid_ = Spawn(args, env, -1, -1, stderr_path_);
    std::regex re("listening on http://127\\.0\\.0\\.1:([0-9]+)/");
    for (int i = 0; i < 300 && port_ == 0; ++i) {
      std::smatch m;
      std::string log = ReadFile(stderr_path_);
      if (std::regex_search(log, m, re)) port_ = std::stoi(m[1]);
      int status = 0;
      if (port_ == 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~ServeProcess() { Stop(); }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Sends SIGTERM and waits; returns the exit status (or -1).
  int Stop() {
    if (pid_ <= 0) return exit_status_;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_status_;
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log() const { return ReadFile(stderr_path_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  TempDir log_dir_;
  std::string stderr_path_;
  pid_t pid_ = -1;
  int port_ = 0;
  int exit_status_ = -1;
};

}  // namespace fixgraph::testing
