// report.json's body for `loom train` (docs/training.md, "Report"). Units are in the names.
#include "training/train_estimate.h"

namespace loom {

namespace {

Json options_json(const TrainOptions& o) {
  return {{"batch", o.batch},
          {"parallel", name_of(o.parallel)},
          {"precision", name_of(o.step.precision)},
          {"optimizer", name_of(o.step.optimizer)},
          {"fuse", o.step.fuse},
          {"layout", name_of(o.layout)},
          {"loss_scaling", o.step.loss_scaling},
          {"all_reduce", name_of(o.all_reduce)},
          {"bucket_bytes", o.bucket_bytes},
          {"overlap", o.overlap},
          {"micro_batches", o.micro_batches},
          {"launch_overhead", o.launch_overhead},
          {"cuda_graphs", o.cuda_graphs},
          {"loader_samples_per_second", o.loader_samples_per_second},
          {"fidelity", name_of(o.fidelity)}};
}

Json breakdown_json(const StepBreakdown& b) {
  return {{"forward_seconds", b.forward},
          {"backward_seconds", b.backward},
          {"update_seconds", b.update},
          {"gemm_seconds", b.gemm},
          {"elementwise_seconds", b.elementwise},
          {"communication_exposed_seconds", b.communication_exposed},
          {"launch_exposed_seconds", b.launch_exposed},
          {"input_wait_seconds", b.input_wait},
          {"pipeline_bubble_seconds", b.pipeline_bubble}};
}

Json memory_json(const DeviceMemory& m) {
  const MemoryFootprint& f = m.footprint;
  return {{"device", m.device},
          {"weights_bytes", f.weights},
          {"master_weights_bytes", f.master_weights},
          {"gradients_bytes", f.gradients},
          {"optimizer_state_bytes", f.optimizer_state},
          {"activations_bytes", f.activations},
          {"workspace_bytes", f.workspace},
          {"total_bytes", f.total()},
          {"capacity_bytes", m.capacity_bytes},
          {"fits", m.fits}};
}

Json kernel_json(const KernelTime& k) {
  return {{"name", k.name},         {"layer", k.layer},           {"op", k.op},
          {"phase", k.phase},       {"kind", k.is_gemm ? "gemm" : "elementwise"},
          {"seconds", k.seconds},   {"flops", k.flops},           {"dram_bytes", k.dram_bytes},
          {"launches", k.launches}, {"fusion_saved_bytes", k.fusion_saved_bytes}};
}

}  // namespace

Json train_result_to_json(const TrainResult& r) {
  Json kernels = Json::array(), memory = Json::array(), effects = Json::array(), timeline = Json::array();
  for (const KernelTime& k : r.kernels) kernels.push_back(kernel_json(k));
  for (const DeviceMemory& m : r.memory) memory.push_back(memory_json(m));
  for (const EffectCost& e : r.effects) {
    effects.push_back({{"name", e.name},
                       {"setting", e.setting},
                       {"step_seconds", e.step_seconds},
                       {"flipped_step_seconds", e.flipped_step_seconds}});
  }
  Json links = Json::array();
  for (const LinkUse& l : r.links) {
    links.push_back({{"between", {l.a, l.b}},
                     {"bytes", l.bytes},
                     {"busy_seconds", l.busy_seconds},
                     {"utilization", r.step_seconds > 0 ? l.busy_seconds / r.step_seconds : 0.0}});
  }
  for (const TimelineEvent& e : r.timeline) {
    timeline.push_back({{"device", e.device},
                        {"lane", e.lane},
                        {"name", e.name},
                        {"phase", e.phase},
                        {"start_seconds", e.start_seconds},
                        {"end_seconds", e.end_seconds}});
  }
  return {{"system", {{"name", r.system_name}, {"file", r.system_file}}},
          {"workload", {{"name", r.workload_name}, {"file", r.workload_file}}},
          {"options", options_json(r.options)},
          {"devices", r.devices},
          {"per_device_batch", r.per_device_batch},
          {"stages", r.stages},
          {"micro_batches", r.micro_batches},
          {"stage_layers", r.stage_layers},
          {"step_seconds", r.step_seconds},
          {"samples_per_second", r.samples_per_second},
          {"breakdown", breakdown_json(r.breakdown)},
          {"communication_seconds", r.communication_seconds},
          {"communication_bytes", r.communication_bytes},
          {"links", links},
          {"bubble_fraction", r.bubble_fraction},
          {"single_device_samples_per_second", r.single_device_samples_per_second},
          {"scaling_efficiency", r.scaling_efficiency},
          {"fusion_saved_bytes", r.fusion_saved_bytes},
          {"fits", r.fits},
          {"memory", memory},
          {"warnings", r.warnings},
          {"effects", effects},
          {"kernels", kernels},
          {"timeline", timeline}};
}

}  // namespace loom
