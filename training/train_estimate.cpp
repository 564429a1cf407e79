#include "training/train_estimate.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>

#include "sim/error.h"
#include "training/parallel_schedules.h"
#include "training/schedule_parts.h"

namespace loom {

const char* name_of(Parallelism p) {
  switch (p) {
    case Parallelism::data: return "data";
    case Parallelism::tensor: return "tensor";
    case Parallelism::pipeline: return "pipeline";
  }
  return "?";
}

namespace {

using Pricers = std::map<const Architecture*, std::unique_ptr<KernelPricer>>;

std::string memory_text(int64_t bytes) {
  char text[32];
  if (bytes < (int64_t(1) << 30)) {
    std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / double(int64_t(1) << 20));
  } else {
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(int64_t(1) << 30));
  }
  return text;
}

// The data loader feeds each node's devices; prefetching hides it unless it is slower than
// the devices, which then idle at the start of every step.
void apply_input_pipeline(const ScheduleContext& c, TrainResult& r) {
  const double rate = c.loader_samples_per_second();
  if (rate <= 0) return;
  double loader_seconds = 0;
  for (int node = 0; node < c.system.node_count(); ++node) {
    const int on_node = c.system.devices_on_node(node);
    if (on_node == 0) continue;
    const double samples = c.options.parallel == Parallelism::data ? double(r.per_device_batch) * on_node
                                                                   : double(c.options.batch);
    loader_seconds = std::max(loader_seconds, samples / rate);
  }
  if (loader_seconds <= r.step_seconds) return;
  const double wait = loader_seconds - r.step_seconds;
  for (TimelineEvent& e : r.timeline) {
    e.start_seconds += wait;
    e.end_seconds += wait;
  }
  const int drawn = std::min<int>(kTimelineDevices, static_cast<int>(c.system.devices.size()));
  for (int d = 0; d < drawn; ++d) r.timeline.push_back({d, "input", "waiting for the data loader", "input_wait", 0, wait});
  r.breakdown.input_wait = wait;
  r.step_seconds = loader_seconds;
  r.warnings.push_back("the data loader (" + std::to_string(int64_t(rate)) +
                       " samples/s per node) is slower than the devices: they idle " +
                       std::to_string(int(100.0 * wait / loader_seconds + 0.5)) + "% of each step");
}

TrainResult estimate_core(const SystemConfig& full, const Network& network, const TrainOptions& options,
                          Pricers& pricers) {
  const SystemConfig system = options.devices > 0 ? first_devices(full, options.devices) : full;
  const Interconnect interconnect(system);
  LinkTraffic traffic(system, interconnect);
  const ScheduleContext context{system, network, options, interconnect, pricers, traffic};
  TrainResult r;
  r.system_name = system.name;
  r.system_file = system.source_file;
  r.workload_name = network.name;
  r.workload_file = network.source_file;
  r.options = options;
  r.devices = static_cast<int>(system.devices.size());
  switch (options.parallel) {
    case Parallelism::data: schedule_data_parallel(context, r); break;
    case Parallelism::tensor: schedule_tensor_parallel(context, r); break;
    case Parallelism::pipeline: schedule_pipeline_parallel(context, r); break;
  }
  apply_input_pipeline(context, r);
  r.links = traffic.uses();
  std::set<const Architecture*> noted;
  for (const SystemDevice& d : system.devices) {
    if (d.arch->is_gpu() || !noted.insert(d.arch.get()).second) continue;
    r.warnings.push_back(d.name + " (" + d.arch->name() + ", " + d.arch->kind_name() +
                         ") computes at its own operand widths; --precision " + name_of(options.step.precision) +
                         " sets only the bytes stored, moved and held");
  }
  r.samples_per_second = double(options.batch) / r.step_seconds;
  r.fits = std::all_of(r.memory.begin(), r.memory.end(), [](const DeviceMemory& m) { return m.fits; });
  return r;
}

void check_options(const TrainOptions& o) {
  if (o.batch < 1 || o.batch > kMaxLayerDimension) {
    throw InputError("", "--batch", "a batch of 1 to " + std::to_string(kMaxLayerDimension) + " samples");
  }
  if (o.bucket_bytes < 1) throw InputError("", "--bucket-mib", "a positive gradient bucket size");
  if (o.micro_batches < 0) throw InputError("", "--micro-batches", "a positive number of micro-batches");
}

// A step that does not fit is flagged; one that fits no device however it is split is an
// error, since no estimate of it could run.
void check_memory(const SystemConfig& system, const Network& network, const TrainOptions& options, TrainResult& r) {
  if (r.fits) return;
  int64_t capacity = 0;
  for (const DeviceMemory& m : r.memory) {
    if (m.capacity_bytes > 0) capacity = capacity == 0 ? m.capacity_bytes : std::min(capacity, m.capacity_bytes);
  }
  int64_t need_here = 0;
  for (const DeviceMemory& m : r.memory) need_here = std::max(need_here, m.footprint.total());
  const int n = r.devices;
  std::string options_text, fitting;
  for (Parallelism p : {Parallelism::data, Parallelism::tensor, Parallelism::pipeline}) {
    int64_t need = 0;
    try {
      need = footprint_bytes(network, options, p, n);
    } catch (const InputError&) {
      continue;  // this split cannot even be derived at this batch (a shape limit)
    }
    options_text += std::string(options_text.empty() ? "" : ", ") + name_of(p) + " " + memory_text(need);
    if (need <= capacity && fitting.empty()) fitting = name_of(p) + std::string(" (") + memory_text(need) + ")";
  }
  if (fitting.empty()) {
    throw InputError(network.source_file, "memory",
                     "a model that fits the devices' " + memory_text(capacity) + ": " + network.name + " at batch " +
                         std::to_string(options.batch) + " needs per device, split across all " + std::to_string(n) +
                         " devices of " + system.name + ": " + options_text);
  }
  r.warnings.insert(r.warnings.begin(), "the step does not fit: it needs " + memory_text(need_here) + " on a device with " +
                                            memory_text(capacity) + "; --parallel " + fitting + " fits");
}

struct Effect {
  const char* name;
  bool on;
  std::function<void(TrainOptions&)> flip;
};

std::vector<Effect> effects_of(const SystemConfig& system, const TrainOptions& o, double loader_rate) {
  std::vector<Effect> e;
  e.push_back({"launch_overhead", o.launch_overhead, [](TrainOptions& t) { t.launch_overhead = !t.launch_overhead; }});
  e.push_back({"cuda_graphs", o.cuda_graphs, [](TrainOptions& t) { t.cuda_graphs = !t.cuda_graphs; }});
  e.push_back({"fusion", o.step.fuse, [](TrainOptions& t) { t.step.fuse = !t.step.fuse; }});
  const bool any_gpu = std::any_of(system.devices.begin(), system.devices.end(),
                                   [](const SystemDevice& d) { return d.arch->is_gpu(); });
  if (any_gpu && uses_tensor_math(o.step.precision)) {
    e.push_back({"layout_nchw", o.layout == TensorLayout::nchw, [](TrainOptions& t) {
                   t.layout = t.layout == TensorLayout::nchw ? TensorLayout::nhwc : TensorLayout::nchw;
                 }});
  }
  if (loader_rate > 0) {
    e.push_back({"input_pipeline", true, [](TrainOptions& t) { t.loader_samples_per_second = 0; }});
  }
  if (o.parallel == Parallelism::data && system.devices.size() > 1) {
    e.push_back({"overlap", o.overlap, [](TrainOptions& t) { t.overlap = !t.overlap; }});
  }
  if (o.step.precision == PrecisionPolicy::mixed_fp16) {
    e.push_back({"loss_scaling", o.step.loss_scaling, [](TrainOptions& t) { t.step.loss_scaling = !t.step.loss_scaling; }});
  }
  return e;
}

}  // namespace

TrainResult estimate_training(const SystemConfig& system, const Network& network, const TrainOptions& options) {
  check_options(options);
  Pricers pricers;
  TrainResult r = estimate_core(system, network, options, pricers);
  const SystemConfig& used = options.devices > 0 ? first_devices(system, options.devices) : system;
  check_memory(used, network, options, r);

  TrainOptions quiet = options;
  quiet.effects = quiet.scaling_baseline = false;
  if (options.scaling_baseline) {
    TrainOptions one = quiet;
    one.devices = 1;
    one.parallel = Parallelism::data;
    // Pipeline: one device running a micro-batch at a time (gradient accumulation) has the
    // throughput of one micro-batch step.
    one.batch = options.parallel == Parallelism::pipeline ? options.batch / r.micro_batches : r.per_device_batch;
    one.micro_batches = 0;
    const TrainResult base = r.devices == 1 ? r : estimate_core(used, network, one, pricers);
    r.single_device_samples_per_second = base.samples_per_second;
    r.scaling_efficiency = r.samples_per_second / (double(r.devices) * base.samples_per_second);
  }
  if (options.effects) {
    const double loader = options.loader_samples_per_second < 0 ? system.host.loader_samples_per_second
                                                                : options.loader_samples_per_second;
    for (const Effect& e : effects_of(used, options, loader)) {
      TrainOptions flipped = quiet;
      e.flip(flipped);
      const TrainResult f = estimate_core(system, network, flipped, pricers);
      r.effects.push_back({e.name, e.on ? "on" : "off", r.step_seconds, f.step_seconds});
    }
  }
  return r;
}

}  // namespace loom
