#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fixgraph::cli {
namespace {

constexpr auto kTerminalInterval = std::chrono::milliseconds(100);
constexpr auto kLogInterval = std::chrono::seconds(1);
constexpr auto kTickInterval = std::chrono::milliseconds(500);
// Rate and ETA only after this long: before, one batch says little.
constexpr double kSteadyAfterS = 1.0;

// 12345678 -> "12,345,678".
std::string Grouped(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  if (n < 0) out.insert(out.begin(), '-');
  return out;
}

// Display columns of UTF-8 text (CJK, three-byte sequences, as two).
size_t Columns(const std::string& s) {
  size_t cols = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) == 0x80) continue;
    cols += c >= 0xE0 && c < 0xF0 ? 2 : 1;
  }
  return cols;
}

// `s` cut to at most `cols` columns at a character boundary.
std::string FitColumns(const std::string& s, size_t cols) {
  size_t used = 0, i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    size_t w = c >= 0xE0 && c < 0xF0 ? 2 : 1;
    if (used + w > cols) break;
    used += w;
    i += len;
  }
  return s.substr(0, i);
}

size_t TerminalColumns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

}  // namespace

double EstimatedFraction(const std::vector<PartProgress>& parts) {
  double weight = 0, weighted_done = 0;
  size_t weighed = 0, waiting = 0;
  for (const PartProgress& p : parts) {
    if (!p.started) {
      ++waiting;
      continue;
    }
    double share =
        p.total > 0 ? std::min(1.0, static_cast<double>(p.done) / static_cast<double>(p.total))
        : p.items_total > 0 ? static_cast<double>(p.items_done) / static_cast<double>(p.items_total)
                            : 0;
    double records = p.total > 0     ? static_cast<double>(p.total)
                     : share >= 0.02 ? static_cast<double>(p.done) / share
                                     : 0;
    if (records <= 0) return -1;
    weight += records;
    weighted_done += records * share;
    ++weighed;
  }
  if (weighed == 0) return -1;
  double mean = weight / static_cast<double>(weighed);
  return weighted_done / (weight + mean * static_cast<double>(waiting));
}

std::string ProgressDuration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  long s = static_cast<long>(std::floor(seconds));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

std::string ProgressLine(const std::string& label, const ProgressState& s, double elapsed_s) {
  std::string out = label;
  const std::int64_t done = s.total > 0 ? std::min(s.done, s.total) : s.done;
  if (!s.unit.empty()) {
    // Appended piece by piece (GCC 12 warns falsely on "  " + an rvalue string).
    out += "  ";
    out += Grouped(done);
    if (s.total > 0) {
      out += '/';
      out += Grouped(s.total);
    }
    out += ' ';
    out += s.unit;
  }
  double fraction = s.fraction;
  if (fraction < 0 && s.total > 0)
    fraction = static_cast<double>(done) / static_cast<double>(s.total);
  if (fraction >= 0) {
    fraction = std::min(fraction, 1.0);
    char pct[16];
    std::snprintf(pct, sizeof pct, "  %d%%", static_cast<int>(std::floor(fraction * 100)));
    out += pct;
  }
  if (elapsed_s >= kSteadyAfterS) {
    if (!s.unit.empty() && done > 0) {
      double rate = static_cast<double>(done) / elapsed_s;
      char r[48];
      if (rate >= 10)
        std::snprintf(r, sizeof r, "  %s/s",
                      Grouped(static_cast<std::int64_t>(std::llround(rate))).c_str());
      else
        std::snprintf(r, sizeof r, "  %.1f/s", rate);
      out += r;
    }
    if (fraction > 0 && fraction < 1)
      out += "  ETA " + ProgressDuration(elapsed_s * (1 - fraction) / fraction);
  }
  out += "  " + ProgressDuration(elapsed_s);
  if (!s.detail.empty()) out += "  " + s.detail;
  return out;
}

Progress::Progress(std::ostream* err, bool terminal, ProgressMode mode, std::string label)
    : err_(err),
      terminal_(terminal),
      enabled_(err != nullptr &&
               (mode == ProgressMode::kForce || (mode == ProgressMode::kAuto && terminal))),
      label_(std::move(label)),
      start_(Clock::now()) {
  if (enabled_ && terminal_) ticker_ = std::thread([this] { Tick(); });
}

Progress::~Progress() { Finish(); }

void Progress::Phase(const std::string& label, ProgressState state) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  if (!terminal_ && dirty_ && drawn_) DrawLocked(true);  // a log keeps each phase's last state
  label_ = label;
  state_ = std::move(state);
  start_ = Clock::now();
  dirty_ = true;
  DrawLocked(true);
}

void Progress::Update(const ProgressState& state) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  state_ = state;
  dirty_ = true;
  // A count that reaches its total is drawn whatever the interval (a
  // terminal shows it complete before the next phase).
  DrawLocked(terminal_ && state_.total > 0 && state_.done >= state_.total);
}

void Progress::Clear() {
  if (!enabled_ || !terminal_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) *err_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

void Progress::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
    if (enabled_) {
      if (terminal_) {
        if (drawn_) *err_ << "\r\x1b[K" << std::flush;
      } else if (dirty_) {
        DrawLocked(true);  // the last state, which the once-a-second limit held back
      }
    }
  }
  cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void Progress::DrawLocked(bool force) {
  const auto now = Clock::now();
  if (!force && drawn_ && now - last_draw_ < (terminal_ ? kTerminalInterval : kLogInterval)) return;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = ProgressLine(label_, state_, elapsed);
  if (terminal_) {
    // One row: a wrapped line could not be redrawn in place.
    const size_t cols = TerminalColumns();
    if (Columns(line) >= cols) line = FitColumns(line, cols > 1 ? cols - 1 : 1);
    *err_ << "\r" << line << "\x1b[K" << std::flush;
  } else {
    *err_ << line << "\n" << std::flush;
  }
  drawn_ = true;
  dirty_ = false;
  last_draw_ = now;
}

void Progress::Tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!finished_) {
    cv_.wait_for(lock, kTickInterval);
    if (finished_) break;
    if (drawn_ && Clock::now() - last_draw_ >= kTickInterval) DrawLocked(true);
  }
}

}  // namespace fixgraph::cli
