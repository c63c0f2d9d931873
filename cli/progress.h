// A progress line on stderr for long commands (import, link, sync, docs
// import, digest): counts, rate and ETA, redrawn in place on a terminal,
// nothing on a pipe or file unless forced. Private to cli/.
//
// Libraries never print: they report through callbacks (ImportOptions::
// on_progress, LinkerOptions::on_progress, SyncOptions::on_progress) and the
// command turns the reports into Update calls.
//
// Modes (the global flags, cli.cc): kAuto draws only when stderr is a
// terminal; kQuiet (--quiet) never draws; kForce (--progress) also draws on
// a pipe or file, as whole lines at most once a second (for logs). On a
// terminal the line is redrawn ("\r", the line, erase to its end) at most ten
// times a second, and at least every half second by a ticker thread, so the
// elapsed time and ETA move while a phase reports nothing; Finish() erases it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace fixgraph::cli {

enum class ProgressMode { kAuto, kQuiet, kForce };

// What a line shows. `fraction` (0..1, -1 when not given) overrides
// done/total for the percentage and the ETA (sync knows pages, not items).
struct ProgressState {
  std::int64_t done = 0;
  std::int64_t total = 0;  // 0: unknown
  std::string unit;        // "records", "issues", ...; "" shows no count
  double fraction = -1;
  std::string detail;  // the repository, the phase, ...

  // A count of `unit` not started yet; a phase with only a note.
  static ProgressState Counting(std::string unit) {
    ProgressState s;
    s.unit = std::move(unit);
    return s;
  }
  // `done` of `total` `unit`, and what is being done.
  static ProgressState Count(std::string unit, std::int64_t done, std::int64_t total,
                             std::string detail) {
    ProgressState s = Counting(std::move(unit));
    s.done = done;
    s.total = total;
    s.detail = std::move(detail);
    return s;
  }
  static ProgressState Note(std::string detail) {
    ProgressState s;
    s.detail = std::move(detail);
    return s;
  }
};

// The text of a line (no control characters): "LABEL  DONE/TOTAL UNIT  PCT%
// RATE/s  ETA M:SS  DETAIL  ELAPSED". ETA and rate appear once a second
// has passed; `done` is shown at most `total`.
std::string ProgressLine(const std::string& label, const ProgressState& s, double elapsed_s);
// "0:07", "12:34", "1:02:03".
std::string ProgressDuration(double seconds);

// One of several parts of a job done at once (the repositories of an
// import): records done of `total` (0: not known yet), or, while the total is
// not known, `items_done` of `items_total` as its share.
struct PartProgress {
  bool started = false;
  std::int64_t done = 0, total = 0, items_done = 0, items_total = 0;
};
// The share of the whole job done (ProgressState::fraction): each started
// part weighs its records, known or estimated as done / share, a part not
// started weighs their mean. -1 when a started part has no estimate yet (its
// share is under 2%) or none has started.
double EstimatedFraction(const std::vector<PartProgress>& parts);

class Progress {
 public:
  // `terminal`: whether `err` is a terminal. Draws nothing when `err` is null.
  Progress(std::ostream* err, bool terminal, ProgressMode mode, std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // A new phase: a new label and state, the rate and ETA measured from now.
  void Phase(const std::string& label, ProgressState state = {});
  // Replaces the state; thread-safe (callbacks may come from worker threads).
  void Update(const ProgressState& state);
  // Erases the line from a terminal until the next Update or Phase (before
  // the command prints to stdout, which may be the same terminal).
  void Clear();
  // Erases the line on a terminal (a forced log gets the last state as a
  // line); nothing is drawn after.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  void DrawLocked(bool force);
  void Tick();

  std::ostream* err_;
  bool terminal_;
  bool enabled_;
  std::string label_;
  ProgressState state_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  bool drawn_ = false;  // a line is on the terminal (or one was logged)
  bool dirty_ = false;  // the state changed since the last line drawn
  bool finished_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
};

}  // namespace fixgraph::cli
