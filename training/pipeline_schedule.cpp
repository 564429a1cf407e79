// Pipeline parallelism (GPipe: Huang et al., NeurIPS 2019): N contiguous stages, M
// micro-batches, all forwards, then all backwards, then each stage's update. With balanced
// stages and free sends the idle share is (N-1)/(M+N-1).
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/error.h"
#include "training/gpipe_grid.h"
#include "training/parallel_schedules.h"
#include "training/schedule_parts.h"

namespace loom {

namespace {

// Cuts `cost` (one value per layer) into `parts` contiguous, non-empty ranges minimising the
// largest range sum; returns the first layer of each range. Dynamic programming over prefix
// sums; ties keep the earliest cut (deterministic).
std::vector<size_t> balanced_cuts(const std::vector<double>& cost, int parts) {
  const size_t n = cost.size();
  std::vector<double> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + cost[i];
  const double inf = std::numeric_limits<double>::infinity();
  // best[p][i]: the smallest largest sum cutting layers [0, i) into p ranges.
  std::vector<std::vector<double>> best(parts + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<size_t>> from(parts + 1, std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  for (int p = 1; p <= parts; ++p) {
    for (size_t i = p; i <= n; ++i) {
      for (size_t j = p - 1; j < i; ++j) {
        const double value = std::max(best[p - 1][j], prefix[i] - prefix[j]);
        if (value < best[p][i]) {
          best[p][i] = value;
          from[p][i] = j;
        }
      }
    }
  }
  std::vector<size_t> starts(parts);
  size_t end = n;
  for (int p = parts; p >= 1; --p) {
    starts[p - 1] = from[p][end];
    end = from[p][end];
  }
  return starts;
}

int64_t default_micro_batches(int64_t batch, int stages) {
  int64_t best = 1;
  for (int64_t m = 1; m <= std::min<int64_t>(batch, 4 * int64_t(stages)); ++m) {
    if (batch % m == 0) best = m;
  }
  return best;
}

int64_t micro_batches_of(const TrainOptions& options, int stages) {
  if (options.micro_batches <= 0) return default_micro_batches(options.batch, stages);
  if (options.micro_batches > options.batch || options.batch % options.micro_batches != 0) {
    throw InputError("", "--micro-batches",
                     "a number of micro-batches that divides the batch (" + std::to_string(options.batch) + " is not a multiple of " +
                         std::to_string(options.micro_batches) + ")");
  }
  return options.micro_batches;
}

StepOptions stage_options(StepOptions s, int stage, int stages) {
  s.with_loss = stage == stages - 1;
  s.input_gradient = stage > 0;
  return s;
}

void check_stages(const Network& network, int stages) {
  if (stages > static_cast<int>(network.layers.size())) {
    throw InputError("", "--devices",
                     "at most one pipeline stage per layer: " + std::to_string(stages) + " stages for " +
                         std::to_string(network.layers.size()) + " layers of " + network.name);
  }
}

}  // namespace

void schedule_pipeline_parallel(const ScheduleContext& c, TrainResult& result) {
  const int p = static_cast<int>(c.system.devices.size());
  check_stages(c.network, p);
  const int64_t m = micro_batches_of(c.options, p);
  const int64_t b = c.options.batch / m;
  result.per_device_batch = c.options.batch;
  result.stages = p;
  result.micro_batches = static_cast<int>(m);

  // Cut on the first device's forward + backward time per layer at the micro-batch.
  const SystemDevice& d0 = c.system.devices[0];
  const TrainingStep whole = derive_training_step(c.network, b, c.step_options(*d0.arch));
  const std::vector<KernelPrice> whole_prices = c.pricer(d0).price(whole);
  std::vector<double> cost(c.network.layers.size(), 0);
  const std::map<std::string, size_t> positions = layer_positions(c.network);
  for (size_t i = 0; i < whole.kernels.size(); ++i) {
    const StepKernel& k = whole.kernels[i];
    if (k.phase == StepPhase::update) continue;
    // The loss (no layer) belongs to the last stage.
    cost[k.layer.empty() ? cost.size() - 1 : positions.at(k.layer)] += whole_prices[i].seconds;
  }
  std::vector<size_t> starts = balanced_cuts(cost, p);
  starts.push_back(c.network.layers.size());

  struct Stage {
    TrainingStep step;
    std::vector<KernelPrice> prices;
    double forward = 0, backward = 0, update = 0;  // per micro-batch (update: once)
    DeviceReplay* replays[3] = {nullptr, nullptr, nullptr};
    double send = 0;  // to the next stage, per micro-batch, each way
    int64_t send_bytes = 0;
  };
  std::vector<Stage> stages(p);
  std::vector<std::unique_ptr<DeviceReplay>> replays;
  for (int s = 0; s < p; ++s) {
    Stage& st = stages[s];
    const SystemDevice& d = c.system.devices[s];
    const Network part = layer_range(c.network, starts[s], starts[s + 1]);
    result.stage_layers.push_back(part.layers.front().name + ".." + part.layers.back().name);
    st.step = derive_training_step(part, b, stage_options(c.step_options(*d.arch), s, p));
    st.prices = c.pricer(d).price(st.step);
    const size_t backward_begin = first_of_phase(st.step, StepPhase::backward);
    const size_t update_begin = first_of_phase(st.step, StepPhase::update);
    const size_t bounds[4] = {0, backward_begin, update_begin, st.step.kernels.size()};
    double* durations[3] = {&st.forward, &st.backward, &st.update};
    for (int phase = 0; phase < 3; ++phase) {
      replays.push_back(std::make_unique<DeviceReplay>(st.step, st.prices, host_launches(c), s, 0.0));
      *durations[phase] = replays.back()->run(bounds[phase], bounds[phase + 1]);
      st.replays[phase] = replays.back().get();
    }
    if (s + 1 < p) {
      Layer boundary = part.layers.back();
      boundary.batch = b;
      st.send_bytes = boundary.ofmap_elements() * storage_bytes(c.options.step.precision);
      st.send = point_to_point(c.interconnect, s, s + 1, st.send_bytes).seconds;
    }
  }

  // GPipe: forwards in micro-batch order, then backwards in reverse micro-batch order.
  const bool training = is_training(c.options.step.precision);
  std::vector<double> forward(p), backward(p), send(p, 0), send_back(p, 0);
  for (int s = 0; s < p; ++s) {
    forward[s] = stages[s].forward;
    backward[s] = stages[s].backward;
    send[s] = stages[s].send;
    send_back[s] = training ? stages[s].send : 0;  // inference sends no gradients back
  }
  const GpipeGrid grid = gpipe_grid(forward, backward, send, send_back, m);
  std::vector<TimelineEvent> events;
  auto bar = [&](int s, const std::string& lane, const std::string& name, const std::string& phase, double start,
                 double end) {
    if (end > start && s < kTimelineDevices) events.push_back({s, lane, name, phase, start, end});
  };
  for (int s = 0; s < p; ++s) {
    for (int64_t j = 0; j < m; ++j) {
      const std::string mb = "mb " + std::to_string(j);
      bar(s, "compute", mb + " forward", "forward", grid.forward_end[s][j] - forward[s], grid.forward_end[s][j]);
      bar(s, "compute", mb + " backward", "backward", grid.backward_end[s][j] - backward[s], grid.backward_end[s][j]);
      if (s + 1 < p) {
        bar(s, "comm", mb + " activations", "p2p", grid.forward_end[s][j], grid.forward_end[s][j] + send[s]);
      }
      if (s > 0 && training) {
        bar(s, "comm", mb + " gradients", "p2p", grid.backward_end[s][j], grid.backward_end[s][j] + send_back[s - 1]);
      }
    }
  }
  double step_end = 0;
  int critical = 0;
  for (int s = 0; s < p; ++s) {
    const double end = grid.backward_end[s][0] + stages[s].update;
    bar(s, "compute", "update", "update", grid.backward_end[s][0], end);
    if (end > step_end) {
      step_end = end;
      critical = s;
    }
  }
  result.step_seconds = step_end;
  result.bubble_fraction = grid.idle_fraction;

  // The breakdown of the stage that finishes last: its busy time per micro-batch times M;
  // the rest of its step is waiting for its neighbours (fill, drain and sends).
  const Stage& cs = stages[critical];
  StepBreakdown& bd = result.breakdown;
  bd.forward = double(m) * cs.replays[0]->busy(StepPhase::forward);
  bd.backward = double(m) * cs.replays[1]->busy(StepPhase::backward);
  bd.update = cs.replays[2]->busy(StepPhase::update);
  bd.launch_exposed = double(m) * (cs.replays[0]->launch_exposed() + cs.replays[1]->launch_exposed()) +
                      cs.replays[2]->launch_exposed();
  bd.gemm = bd.elementwise = 0;
  for (int phase = 0; phase < 3; ++phase) {
    const double times = phase == 2 ? 1.0 : double(m);
    bd.gemm += times * cs.replays[phase]->gemm_busy();
    bd.elementwise += times * cs.replays[phase]->elementwise_busy();
  }
  bd.pipeline_bubble = std::max(0.0, step_end - bd.forward - bd.backward - bd.update - bd.launch_exposed);

  for (int s = 0; s < p; ++s) {
    const Stage& st = stages[s];
    const int64_t sent = m * (st.send_bytes + (s > 0 && training ? stages[s - 1].send_bytes : 0));
    result.communication_bytes = std::max(result.communication_bytes, sent);
    const int ways = training ? 2 : 1;
    result.communication_seconds += double(m) * ways * st.send;
    if (s + 1 < p) {
      c.traffic.add_point_to_point(s, s + 1, st.send_bytes, st.send, static_cast<int>(m));
      if (training) c.traffic.add_point_to_point(s + 1, s, st.send_bytes, st.send, static_cast<int>(m));
    }
    MemoryFootprint f = st.step.memory;
    f.activations *= m;  // GPipe keeps every micro-batch's activations until its backward
    result.memory.push_back(device_memory(c.system.devices[s], f));
  }
  result.kernels = kernel_times(stages[0].step, stages[0].prices);
  result.fusion_saved_bytes = 0;
  for (const Stage& st : stages) result.fusion_saved_bytes += m * st.step.fusion_saved_bytes();
  result.timeline = std::move(events);
}

int64_t footprint_bytes(const Network& network, const TrainOptions& options, Parallelism parallel, int devices) {
  const StepOptions step = options.step;
  if (parallel == Parallelism::data) {
    const int64_t per_device = std::max<int64_t>(1, options.batch / devices);
    return derive_training_step(network, per_device, step).memory.total();
  }
  if (parallel == Parallelism::tensor) {
    return derive_training_step(split_output_channels(network, devices), options.batch, step).memory.total();
  }
  const int stages = std::min<int>(devices, static_cast<int>(network.layers.size()));
  const int64_t m = options.micro_batches > 0 && options.batch % options.micro_batches == 0
                        ? options.micro_batches
                        : default_micro_batches(options.batch, stages);
  const int64_t b = options.batch / m;
  // Per layer: what it holds once, plus its activations for every micro-batch.
  std::vector<double> held(network.layers.size());
  int64_t workspace = 0;
  for (size_t l = 0; l < network.layers.size(); ++l) {
    const MemoryFootprint f =
        derive_training_step(layer_range(network, l, l + 1), b, stage_options(step, l == 0 ? 0 : 1, 2)).memory;
    held[l] = double(f.total() - f.workspace - f.activations) + double(m) * double(f.activations);
    workspace = std::max(workspace, f.workspace);
  }
  std::vector<size_t> starts = balanced_cuts(held, stages);
  starts.push_back(network.layers.size());
  double largest = 0;
  for (int s = 0; s < stages; ++s) {
    double sum = 0;
    for (size_t l = starts[s]; l < starts[s + 1]; ++l) sum += held[l];
    largest = std::max(largest, sum);
  }
  return int64_t(std::llround(largest)) + workspace;
}

}  // namespace loom
