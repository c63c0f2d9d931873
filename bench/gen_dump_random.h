// gen_dump_random.h: fixgraph_gen_dump's deterministic randomness. StreamKey names one
// independent stream by (seed, repository, purpose, item); SplitMix64 is the one-word engine of
// the plan streams that are recomputed often, std::mt19937_64 the engine of the text streams;
// Rng draws from either with integer arithmetic only (the standard distributions are
// implementation-defined), so a dump depends on nothing but the options.
#pragma once

#include "gen_dump_shape.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>

namespace gen_dump {

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

constexpr uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr uint64_t Mix64(uint64_t x) { return Finalize(x + kGoldenGamma); }

// Names one independent random stream.
constexpr uint64_t StreamKey(uint64_t seed, uint64_t repo, uint64_t tag, uint64_t item) {
  return Mix64(Mix64(Mix64(Mix64(seed) ^ repo) ^ tag) ^ item);
}

// SplitMix64 as a UniformRandomBitGenerator: one word of state, so the keyed plan streams
// that are recomputed many times cost nothing to create.
class SplitMix64 {
 public:
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return Finalize(state_ += kGoldenGamma); }

 private:
  uint64_t state_;
};

// Distributions over any 64-bit engine, with integer arithmetic only.
template <class Engine>
class Rng {
  static_assert(Engine::min() == 0 && Engine::max() == std::numeric_limits<uint64_t>::max());

 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t Bits() { return engine_(); }
  // Uniform in [0, n), n > 0. Rejection removes the modulo bias.
  uint64_t Below(uint64_t n) {
    const uint64_t reject_under = (0 - n) % n;
    for (;;) {
      const uint64_t x = engine_();
      if (x >= reject_under) return x % n;
    }
  }
  // Uniform in [lo, hi].
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }
  bool Percent(uint32_t percent) { return Below(100) < percent; }
  // In [lo, hi), skewed towards lo (minimum of two uniforms).
  size_t Skewed(size_t lo, size_t hi) { return lo + std::min(Below(hi - lo), Below(hi - lo)); }
  template <class Seq>
  const auto& Pick(const Seq& seq) {
    return seq[Below(std::size(seq))];
  }
  template <size_t N>
  size_t Weighted(const std::array<uint32_t, N>& weights) {
    uint64_t total = 0;
    for (const uint32_t w : weights) total += w;
    uint64_t x = Below(total);
    for (size_t i = 0; i < N; ++i) {
      if (x < weights[i]) return i;
      x -= weights[i];
    }
    return N - 1;
  }
  template <size_t N>
  int64_t Span(const std::array<SpanBucket, N>& buckets) {
    std::array<uint32_t, N> weights{};
    for (size_t i = 0; i < N; ++i) weights[i] = buckets[i].weight;
    const SpanBucket& b = buckets[Weighted(weights)];
    return Between(b.lo, b.hi);
  }

 private:
  Engine engine_;
};

using PlanRng = Rng<SplitMix64>;
using TextRng = Rng<std::mt19937_64>;

}  // namespace gen_dump
