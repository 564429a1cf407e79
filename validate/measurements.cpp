#include "validate/measurements.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "arch/simt/kernels/kernel_catalog.h"
#include "sim/error.h"
#include "sim/text_file.h"
#include "validate/microbenchmarks.h"
#include "validate/published_figures.h"

namespace loom::validate {

const char* origin_name(Origin origin) { return origin == Origin::measured ? "measured" : "published"; }

namespace {

// ---------------------------------------------------------------------------------------
// Reading

std::string dim3_text(const simt::Dim3& d) { return Json{d.x, d.y, d.z}.dump(); }

bool same_dim3(const simt::Dim3& a, const simt::Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

simt::Dim3 read_dim3(JsonReader& r, const std::string& key) {
  const Json& v = r.value(key);
  const char* rule = "expected [x, y, z]: 1 to 3 positive whole numbers";
  if (!v.is_array() || v.empty() || v.size() > 3) r.fail(key, rule);
  uint32_t xyz[3] = {1, 1, 1};
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<int64_t>() < 1 || v[i].get<int64_t>() > 0xffffffffLL) r.fail(key, rule);
    xyz[i] = static_cast<uint32_t>(v[i].get<int64_t>());
  }
  return {xyz[0], xyz[1], xyz[2]};
}

TimeStats read_time(JsonReader r) {
  TimeStats t;
  t.median_us = r.positive_number("median_us");
  t.min_us = r.positive_number("min_us", t.median_us);
  t.max_us = r.positive_number("max_us", t.median_us);
  t.p10_us = r.positive_number("p10_us", t.min_us);
  t.p90_us = r.positive_number("p90_us", t.max_us);
  t.repeats = static_cast<int>(r.positive_integer("repeats", 1));
  if (!(t.min_us <= t.median_us && t.median_us <= t.max_us))
    r.fail("median_us", "expected min_us <= median_us <= max_us");
  r.finish();
  return t;
}

std::map<std::string, int64_t> read_sizes(JsonReader& r, const std::string& key) {
  const Json& v = r.value(key);
  if (!v.is_object()) r.fail(key, "expected an object of size parameters, e.g. {\"M\": 1024, \"N\": 1024, \"K\": 1024}");
  std::map<std::string, int64_t> sizes;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_number_integer()) r.fail(key + "." + it.key(), "expected a whole number");
    sizes[it.key()] = it.value().get<int64_t>();
  }
  return sizes;
}

// A run of a shipped kernel: the kernel must be one loom ships, the sizes ones it takes, and
// the recorded launch the one loom's recipe makes (else loom would simulate something else).
KernelRun read_run(JsonReader r) {
  KernelRun run;
  run.kernel = r.string("kernel");
  if (!simt::is_catalog_kernel(run.kernel))
    r.fail("kernel", "a kernel loom ships (" + names_of(simt::kernel_catalog()) + "), got \"" + run.kernel + "\"");
  run.sizes = read_sizes(r, "sizes");
  simt::LaunchRecipe recipe;
  try {
    recipe = simt::make_launch_recipe(run.kernel, run.sizes, "sizes");
  } catch (const InputError& e) {
    r.fail("sizes", e.expected());
  }
  run.sizes = simt::size_parameters(recipe);  // defaults filled in, derived sizes left out
  run.grid = read_dim3(r, "grid");
  run.block = read_dim3(r, "block");
  if (!same_dim3(run.grid, recipe.grid) || !same_dim3(run.block, recipe.block)) {
    r.fail("grid", "the launch loom's recipe makes for these sizes: grid " + dim3_text(recipe.grid) + ", block " +
                       dim3_text(recipe.block) + " (the file has grid " + dim3_text(run.grid) + ", block " +
                       dim3_text(run.block) + "; was it recorded by another loom version?)");
  }
  run.time = read_time(r.object("time"));
  run.verified = r.boolean("verified", false);
  r.finish();
  return run;
}

DeviceInfo read_device(JsonReader r) {
  DeviceInfo d;
  d.name = r.string("name");
  if (d.name.empty()) r.fail("name", "expected the device name, e.g. \"Tesla V100-SXM2-16GB\"");
  d.compute_capability = r.string("compute_capability", "");
  d.sms = static_cast<int>(r.non_negative_integer("sms", 0));
  d.sm_clock_mhz = r.number("sm_clock_mhz", 0);
  d.memory_clock_mhz = r.number("memory_clock_mhz", 0);
  d.memory_bus_bits = static_cast<int>(r.non_negative_integer("memory_bus_bits", 0));
  d.memory_bytes = r.non_negative_integer("memory_bytes", 0);
  d.l2_bytes = r.non_negative_integer("l2_bytes", 0);
  d.max_threads_per_sm = static_cast<int>(r.non_negative_integer("max_threads_per_sm", 0));
  d.shared_bytes_per_sm = r.non_negative_integer("shared_bytes_per_sm", 0);
  d.driver_version = r.string("driver_version", "");
  d.runtime_version = r.string("runtime_version", "");
  if (d.sm_clock_mhz < 0) r.fail("sm_clock_mhz", "expected a clock in MHz (> 0), or leave it out");
  r.finish();
  return d;
}

// A source id: must be declared in "sources" (published files need one on every figure).
std::string read_source(JsonReader& r, const std::set<std::string>& declared, bool required) {
  if (!required && !r.has("source")) return "";
  const std::string id = r.string("source");
  if (!declared.count(id)) {
    std::string list;
    for (const std::string& s : declared) list += (list.empty() ? "" : ", ") + s;
    r.fail("source", "the id of an entry of \"sources\" (" + (list.empty() ? "none declared" : list) + "), got \"" + id +
                         "\"");
  }
  return id;
}

}  // namespace

MeasurementFile parse_measurements(const Json& json, const std::string& path) {
  if (!json.is_object()) throw InputError(path, "(root)", "a JSON object (a loom measurement file)");
  JsonReader r(json, path, "");
  const std::string schema = r.string("schema");
  if (schema != kMeasurementSchema)
    r.fail("schema", std::string("\"") + kMeasurementSchema + "\" (this is not a loom measurement file)");
  const int64_t version = r.integer("schema_version");
  if (version != kMeasurementSchemaVersion) {
    r.fail("schema_version", "version " + std::to_string(kMeasurementSchemaVersion) +
                                 ", the one this loom reads (the file has " + std::to_string(version) +
                                 "; re-record it with this loom's runner, or use the loom that wrote it)");
  }
  MeasurementFile f;
  f.path = path;
  f.origin = r.choice("origin", {"measured", "published"}) == "measured" ? Origin::measured : Origin::published;
  f.date = r.string("date");
  f.device = read_device(r.object("device"));
  f.warmups = static_cast<int>(r.non_negative_integer("warmups", 0));
  f.repeats = static_cast<int>(r.non_negative_integer("repeats", 0));
  f.launch_overhead_us = r.number("launch_overhead_us", 0);
  if (f.launch_overhead_us < 0) r.fail("launch_overhead_us", "expected a time in microseconds >= 0");
  f.note = r.string("note", "");

  std::set<std::string> declared;
  if (r.has("sources"))
    for (JsonReader s : r.array_of_objects("sources")) {
      Source src{s.string("id"), s.string("citation")};
      if (!declared.insert(src.id).second) s.fail("id", "a unique id (\"" + src.id + "\" is declared twice)");
      s.finish();
      f.sources.push_back(src);
    }
  const bool published = f.origin == Origin::published;
  if (published && declared.empty())
    r.fail("sources", "at least one source (a published file must say where its figures come from)");

  if (r.has("kernels"))
    for (JsonReader k : r.array_of_objects("kernels")) f.kernels.push_back(read_run(k));
  if (r.has("microbenchmarks"))
    for (JsonReader m : r.array_of_objects("microbenchmarks")) {
      Microbenchmark mb;
      mb.name = m.string("name");
      const MicrobenchmarkDef* def = find_microbenchmark(mb.name);
      if (!def) m.fail("name", "a microbenchmark loom knows (" + names_of(microbenchmark_catalog()) + "), got \"" + mb.name + "\"");
      mb.value = m.positive_number("value");
      mb.unit = m.string("unit");
      if (mb.unit != quantity_unit(def->quantity))
        m.fail("unit", std::string("\"") + quantity_unit(def->quantity) + "\" for " + mb.name + ", got \"" + mb.unit + "\"");
      if (m.has("runs"))
        for (JsonReader run : m.array_of_objects("runs")) mb.runs.push_back(read_run(run));
      if (!mb.runs.empty()) {
        if (mb.runs.size() != 2) m.fail("runs", "two runs: the probe's small and large launch");
        const std::string kernel = make_probe(mb.name, ProbeTarget{}).kernel;
        for (const KernelRun& run : mb.runs)
          if (run.kernel != kernel) m.fail("runs", mb.name + " runs " + kernel + ", not " + run.kernel);
        try {
          work_difference(mb.name, mb.runs[0].sizes, mb.runs[1].sizes);
        } catch (const InputError& e) {
          m.fail("runs", e.expected());
        }
      }
      mb.source = read_source(m, declared, published);
      mb.note = m.string("note", "");
      m.finish();
      f.microbenchmarks.push_back(std::move(mb));
    }
  if (r.has("references"))
    for (JsonReader ref : r.array_of_objects("references")) {
      LibraryReference lib;
      lib.name = ref.string("name");
      lib.sizes = read_sizes(ref, "sizes");
      lib.time = read_time(ref.object("time"));
      lib.flops = ref.number("flops", 0);
      ref.finish();
      f.references.push_back(std::move(lib));
    }
  if (r.has("figures"))
    for (JsonReader fig : r.array_of_objects("figures")) {
      PublishedFigure p;
      p.name = fig.string("name");
      const FigureDef* def = find_published_figure(p.name);
      if (!def) fig.fail("name", "a figure loom knows (" + names_of(published_figure_catalog()) + "), got \"" + p.name + "\"");
      if (fig.has("value")) {
        p.low = p.high = fig.positive_number("value");
      } else {
        p.low = fig.positive_number("low");
        p.high = fig.positive_number("high");
        if (p.high < p.low) fig.fail("high", "expected high >= low");
      }
      p.unit = fig.string("unit");
      if (p.unit != def->unit) fig.fail("unit", "\"" + def->unit + "\" for " + p.name + ", got \"" + p.unit + "\"");
      p.source = read_source(fig, declared, true);
      p.note = fig.string("note", "");
      fig.finish();
      f.figures.push_back(std::move(p));
    }
  r.finish();
  return f;
}

MeasurementFile load_measurements(const std::string& path) { return parse_measurements(load_json_file(path), path); }

// ---------------------------------------------------------------------------------------
// Writing

Json to_json(const TimeStats& t) {
  return Json{{"median_us", t.median_us}, {"min_us", t.min_us}, {"max_us", t.max_us},
              {"p10_us", t.p10_us},       {"p90_us", t.p90_us}, {"repeats", t.repeats}};
}

Json to_json(const KernelRun& run) {
  return Json{{"kernel", run.kernel},
              {"sizes", run.sizes},
              {"grid", {run.grid.x, run.grid.y, run.grid.z}},
              {"block", {run.block.x, run.block.y, run.block.z}},
              {"time", to_json(run.time)},
              {"verified", run.verified}};
}

Json to_json(const MeasurementFile& f) {
  const DeviceInfo& d = f.device;
  Json j{{"schema", kMeasurementSchema},
         {"schema_version", kMeasurementSchemaVersion},
         {"origin", origin_name(f.origin)},
         {"date", f.date},
         {"device",
          {{"name", d.name},
           {"compute_capability", d.compute_capability},
           {"sms", d.sms},
           {"sm_clock_mhz", d.sm_clock_mhz},
           {"memory_clock_mhz", d.memory_clock_mhz},
           {"memory_bus_bits", d.memory_bus_bits},
           {"memory_bytes", d.memory_bytes},
           {"l2_bytes", d.l2_bytes},
           {"max_threads_per_sm", d.max_threads_per_sm},
           {"shared_bytes_per_sm", d.shared_bytes_per_sm},
           {"driver_version", d.driver_version},
           {"runtime_version", d.runtime_version}}},
         {"warmups", f.warmups},
         {"repeats", f.repeats},
         {"launch_overhead_us", f.launch_overhead_us}};
  if (!f.note.empty()) j["note"] = f.note;
  Json sources = Json::array();
  for (const Source& s : f.sources) sources.push_back({{"id", s.id}, {"citation", s.citation}});
  j["sources"] = sources;
  Json kernels = Json::array();
  for (const KernelRun& run : f.kernels) kernels.push_back(to_json(run));
  j["kernels"] = kernels;
  Json micro = Json::array();
  for (const Microbenchmark& m : f.microbenchmarks) {
    Json e{{"name", m.name}, {"value", m.value}, {"unit", m.unit}};
    if (!m.runs.empty()) {
      Json runs = Json::array();
      for (const KernelRun& run : m.runs) runs.push_back(to_json(run));
      e["runs"] = runs;
    }
    if (!m.source.empty()) e["source"] = m.source;
    if (!m.note.empty()) e["note"] = m.note;
    micro.push_back(e);
  }
  j["microbenchmarks"] = micro;
  Json refs = Json::array();
  for (const LibraryReference& lib : f.references)
    refs.push_back({{"name", lib.name}, {"sizes", lib.sizes}, {"time", to_json(lib.time)}, {"flops", lib.flops}});
  j["references"] = refs;
  Json figures = Json::array();
  for (const PublishedFigure& p : f.figures) {
    Json e{{"name", p.name}, {"unit", p.unit}, {"source", p.source}};
    if (p.low == p.high) {
      e["value"] = p.low;
    } else {
      e["low"] = p.low;
      e["high"] = p.high;
    }
    if (!p.note.empty()) e["note"] = p.note;
    figures.push_back(e);
  }
  j["figures"] = figures;
  return j;
}

TimeStats summarize_times(std::vector<double> times) {
  TimeStats t;
  if (times.empty()) return t;
  std::sort(times.begin(), times.end());
  // Nearest-rank percentiles: every statistic is one of the measured times.
  auto rank = [&](double q) {
    const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(times.size())));
    return times[std::min(times.size() - 1, i > 0 ? i - 1 : 0)];
  };
  const size_t n = times.size();
  t.median_us = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  t.min_us = times.front();
  t.max_us = times.back();
  t.p10_us = rank(0.10);
  t.p90_us = rank(0.90);
  t.repeats = static_cast<int>(n);
  return t;
}

}  // namespace loom::validate
