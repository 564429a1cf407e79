// loom_bench: `loom_bench` runs every benchmark in turn; `loom_bench NAME [ARGS...]` runs
// one (`loom_bench 7` is the ResNet-50 benchmark with 7 repeats, as before there was more
// than one).
#include <sys/resource.h>

#include <cctype>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "sim/error.h"

namespace {

struct Bench {
  const char* name;
  int (*run)(const std::vector<std::string>&);
  const char* what;
};

constexpr Bench kBenches[] = {
    {"resnet50", bench_resnet50, "ResNet-50 at cycle level on the 128x128 WS array; cycle vs PE-level model"},
    {"mapper", bench_mapper, "cost-model evaluations/s; mapping ResNet-50 onto the Eyeriss-like config"},
    {"sweep", bench_sweep, "1,000-point systolic grid over ResNet-50 (analytic) with -j 1 and -j 2; front re-simulation"},
    {"train", bench_train, "loom train estimate of ResNet-50 on 8 V100s (DGX-1), data/tensor/pipeline parallel"},
    {"gpu", bench_gpu, "SIMT model warp instructions/s and cycles/s, WMMA and tiled GEMM 1024^3 on the V100 config"},
    {"limits", bench_limits, "largest shipped cases and cases at loom's limits: time and peak RSS of each"},
};

// The peak resident memory of this process so far (a benchmark's children are not counted).
void print_peak_rss(const char* bench) {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  std::printf("[%s] peak RSS of loom_bench so far: %.1f MiB\n", bench, usage.ru_maxrss / 1024.0);
}

int run_benchmarks(const std::vector<std::string>& args) {
  if (args.empty()) {
    int status = 0;
    for (const Bench& b : kBenches) {
      status |= b.run({});
      print_peak_rss(b.name);
    }
    return status;
  }
  if (std::isdigit(static_cast<unsigned char>(args[0][0]))) {
    const int status = bench_resnet50(args);
    print_peak_rss("resnet50");
    return status;
  }
  for (const Bench& b : kBenches) {
    if (args[0] != b.name) continue;
    const int status = b.run(std::vector<std::string>(args.begin() + 1, args.end()));
    print_peak_rss(b.name);
    return status;
  }
  std::fprintf(stderr, "usage: loom_bench [NAME [ARGS...]]\nbenchmarks:\n");
  for (const Bench& b : kBenches) std::fprintf(stderr, "  %-9s %s\n", b.name, b.what);
  return 2;
}

}  // namespace

// Bad arguments (an unknown kernel, a size that is not a number) are the user's to fix:
// exit 2 with the message, as loom does, instead of an uncaught exception's abort.
int main(int argc, char** argv) {
  try {
    return run_benchmarks(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const loom::InputError& e) {
    std::fprintf(stderr, "loom_bench: error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "loom_bench: error: an argument is not a number (%s)\n", e.what());
    return 2;
  } catch (const std::out_of_range& e) {
    std::fprintf(stderr, "loom_bench: error: an argument is out of range (%s)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loom_bench: internal error: %s\n", e.what());
    return 1;
  }
}
