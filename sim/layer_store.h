// The finished layers of a network run, so that an interrupted run can resume: a runner
// asks find(i) before it computes layer i and uses what comes back instead, and hands each
// layer it did compute to keep(i, result). The store behind the two functions (a checkpoint
// file: apps/run_checkpoint.h) is the caller's business; the models only see these hooks,
// so they do not depend on the command line. `T` is whatever rebuilds the layer's result
// exactly (the systolic engine's LayerTiming, a GPU layer's GpuStats, a mapper search).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

namespace loom {

template <class T>
struct LayerStore {
  std::function<std::optional<T>(size_t index)> find;  // empty: nothing kept
  std::function<void(size_t index, const T&)> keep;     // empty: nothing to keep

  std::optional<T> kept(size_t index) const { return find ? find(index) : std::nullopt; }
  void finished(size_t index, const T& result) const {
    if (keep) keep(index, result);
  }
};

}  // namespace loom
