// The run and sweep HTML reports (apps/report_html.h) from synthetic summaries and sweeps:
// marks per class counted exactly, escaping, self-containment, determinism, strict reading,
// large inputs, and the page in a real headless browser (tests/browser/check_report.py).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include <unistd.h>

#include "apps/report_html.h"
#include "apps/svg_charts.h"
#include "sim/error.h"

using namespace loom;

namespace {

// Elements whose class attribute holds `token` (class="a b" counts for a and for b).
int count_class(const std::string& page, const std::string& token) {
  int n = 0;
  const std::string key = "class=\"";
  for (size_t at = page.find(key); at != std::string::npos; at = page.find(key, at + 1)) {
    const size_t start = at + key.size(), end = page.find('"', start);
    std::istringstream classes(page.substr(start, end - start));
    for (std::string c; classes >> c;) n += c == token;
  }
  return n;
}

Json layer(const std::string& name, const std::string& kind, double scale, double sram_energy, double dram_bytes) {
  const double flops = 2e9 * scale, seconds = 1e-3 * scale;
  Json intensity = dram_bytes > 0 ? Json(flops / dram_bytes) : Json(nullptr);
  const bool memory = dram_bytes > 0 && flops / dram_bytes < 20;
  return Json{{"name", name},
              {"kind", kind},
              {"macs", static_cast<int64_t>(1e9 * scale)},
              {"flops", flops},
              {"cycles", static_cast<int64_t>(1e6 * scale)},
              {"seconds", seconds},
              {"utilization", 0.5},
              {"energy_pj", {{"mac", 1e6 * scale}, {"sram", sram_energy}, {"dram", 2e6 * scale}, {"total", 3e6 * scale + sram_energy}}},
              {"bytes", {{"sram", 1e7 * scale}, {"dram", dram_bytes}}},
              {"roofline",
               {{"intensity_flops_per_byte", intensity},
                {"achieved_flops_per_second", flops / seconds},
                {"attainable_flops_per_second", memory ? 1e11 * flops / dram_bytes : 2e12},
                {"bound", memory ? "memory" : "compute"}}}};
}

// Three layers (the second named <script>, without SRAM energy; the third without DRAM
// traffic), two compute roofs, two bandwidth roofs; or `n` plain layers.
Json summary(int n = 0) {
  Json layers = Json::array();
  if (n == 0) {
    layers.push_back(layer("conv1", "conv2d", 1.0, 5e5, 2e8));
    layers.push_back(layer("<script>alert(1)</script>", "conv2d", 2.0, 0, 1e7));
    layers.push_back(layer("fc", "gemm", 0.5, 1e5, 0));
  } else {
    for (int i = 0; i < n; ++i)
      layers.push_back(layer("layer" + std::to_string(i), "conv2d", 0.1 + 0.05 * (i % 7), 1e5, 1e6 * (1 + i % 5)));
  }
  Json totals = layer("total", "network", 3.5, 6e5, 2.1e8);
  return Json{{"fidelity", "analytic"},
              {"arch", {{"name", "toy & <arch>"}, {"kind", "systolic"}, {"file", "configs/toy.json"}}},
              {"workload", {{"name", "toynet"}, {"file", "workloads/toy.json"}}},
              {"clock_hz", 1e9},
              {"peak_macs_per_cycle", 1024},
              {"roofline",
               {{"compute_roofs", {{{"name", "peak"}, {"flops_per_second", 2e12}}, {{"name", "vector"}, {"flops_per_second", 5e11}}}},
                {"bandwidth_roofs", {{{"level", "sram"}, {"bytes_per_second", 1e12}}, {{"level", "dram"}, {"bytes_per_second", 1e11}}}}}},
              {"energy_components", {"mac", "sram", "dram"}},
              {"memory_levels", {"sram", "dram"}},
              {"layers", layers},
              {"totals", totals}};
}

Json objectives() {
  return Json::array({{{"name", "latency"}, {"metric", "latency_s"}, {"direction", "min"}},
                      {{"name", "energy"}, {"metric", "energy_j"}, {"direction", "min"}}});
}

Json manifest(size_t n) {
  return Json{{"schema", "loom-sweep-result/1"},
              {"spec", {{"name", "toy <sweep>"}, {"file", "sweeps/toy.json"}}},
              {"strategy", "grid"},
              {"objectives", objectives()},
              {"parameters", {{{"path", "array.rows"}, {"values", {8, 16, 32, 64}}}, {{"path", "dataflow"}, {"values", {"ws", "os"}}}}},
              {"constraints", {{{"metric", "area_mm2"}, {"max", 10}}}},
              {"workloads", {{{"name", "toynet"}, {"file", "workloads/toy.json"}}}},
              {"shard", {{"index", 0}, {"count", 1}}},
              {"points_planned", n},
              {"points_done", n},
              {"complete", true},
              {"fidelity", {{"search", "analytic"}, {"pareto", "cycle"}}}};
}

Json point(int i) {
  const double latency = 1e-3 * (1 + i % 10) * (1 + i / 10), energy = 1e-2 / (1 + i % 10) * (1 + (i % 3));
  return Json{{"index", i},
              {"params", {{"array.rows", 8 << (i % 4)}, {"dataflow", i % 2 ? "os" : "ws"}}},
              {"arch_name", "toy-" + std::to_string(i)},
              {"fidelity", "analytic"},
              {"metrics",
               {{"latency_s", latency}, {"energy_j", energy}, {"edp_js", latency * energy}, {"throughput_per_area", 1 / latency / 4},
                {"area_mm2", 4.0 + i % 4}, {"power_w", energy / latency}, {"inferences_per_s", 1 / latency}}},
              {"workloads", {{"toynet", {{"latency_s", latency}, {"energy_j", energy}, {"macs", 1000000}}}}},
              {"feasible", true},
              {"violations", Json::array()},
              {"error", nullptr}};
}

// 20 points: #5 infeasible, #11 failed; a front of 4 (#0, #3, #7, #9), 3 of them re-simulated.
struct Sweep {
  Json manifest;
  std::vector<Json> points;
  Json pareto;
};

Sweep sweep(int n = 20) {
  Sweep s{manifest(static_cast<size_t>(n)), {}, {}};
  for (int i = 0; i < n; ++i) s.points.push_back(point(i));
  s.points[5]["feasible"] = false;
  s.points[5]["violations"] = {"area_mm2 9.5 > max 10 <b>"};
  s.points[11]["feasible"] = false;
  s.points[11].erase("metrics");
  s.points[11]["error"] = "mapper found no valid mapping <x>";
  Json front = Json::array();
  for (int i : {0, 3, 7, 9}) {
    Json f = s.points[static_cast<size_t>(i)];
    if (i == 9) {
      f["cycle"] = nullptr;
    } else {
      Json m = f["metrics"];
      m["latency_s"] = m["latency_s"].get<double>() * 1.1;
      f["cycle"] = {{"metrics", m}, {"workloads", f["workloads"]}};
    }
    f["front_at_cycle"] = i != 7;
    front.push_back(f);
  }
  s.pareto = Json{{"objectives", objectives()}, {"front", front}};
  return s;
}

std::string render(const Sweep& s) { return render_sweep_report(s.manifest, s.points, s.pareto); }

// The InputError's field, or "" when no InputError was thrown.
template <typename F>
std::string error_field(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    CHECK(e.file().empty());
    return e.field();
  }
  return "";
}

}  // namespace

TEST_CASE("html report: si_format picks the prefix after rounding") {
  CHECK(si_format(2.5e-6, "s") == "2.5 \xc2\xb5s");
  CHECK(si_format(1.2e12, "FLOP/s") == "1.2 TFLOP/s");
  CHECK(si_format(0, "J") == "0 J");
  CHECK(si_format(999.96, "B") == "1 kB");
  CHECK(si_format(1e9, "", 3) == "1G");
  CHECK(si_format(-0.002, "s") == "-2 ms");
}

TEST_CASE("html report: run page marks, escaping, self-containment and determinism") {
  const std::string page = render_run_report(summary());
  CHECK(count_class(page, "layer-point") == 3);
  CHECK(count_class(page, "network-point") == 1);
  CHECK(count_class(page, "compute-roof") == 2);
  CHECK(count_class(page, "bandwidth-roof") == 2);
  CHECK(count_class(page, "ridge-point") == 2);
  CHECK(count_class(page, "latency-bar") == 3);
  CHECK(count_class(page, "energy-segment") == 8);  // 3 layers x 3 components, one zero
  CHECK(count_class(page, "traffic-bar") == 5);     // 3 layers x 2 levels, one zero
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("toy &amp; &lt;arch&gt;") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("<h2>Layers</h2>") != std::string::npos);
  CHECK(page.find("<td>memory</td>") != std::string::npos);
  CHECK(render_run_report(summary()) == page);
}

TEST_CASE("html report: run page reads strictly and names the path") {
  Json s = summary();
  s["layers"][1]["roofline"].erase("bound");
  CHECK(error_field([&] { render_run_report(s); }) == "summary.layers[1].roofline.bound");
  s = summary();
  s["layers"][2]["energy_pj"]["mac"] = "lots";
  CHECK(error_field([&] { render_run_report(s); }) == "summary.layers[2].energy_pj.mac");
  s = summary();
  s["layers"][0]["bytes"]["l3"] = 5;
  CHECK(error_field([&] { render_run_report(s); }) == "summary.layers[0].bytes.l3");
  s = summary();
  s["arch"]["kind"] = "fpga";
  CHECK(error_field([&] { render_run_report(s); }) == "summary.arch.kind");
  s = summary();
  s.erase("totals");
  CHECK(error_field([&] { render_run_report(s); }) == "summary.totals");
  CHECK(error_field([&] { render_run_report(Json::array()); }) == "summary");
}

TEST_CASE("html report: sweep page marks, escaping and determinism") {
  const Sweep s = sweep();
  const std::string page = render(s);
  CHECK(count_class(page, "sweep-point") == 20);
  CHECK(count_class(page, "infeasible-point") == 2);
  CHECK(count_class(page, "front-point") == 4);
  CHECK(count_class(page, "front-point-line") == 1);
  CHECK(count_class(page, "resim-point") == 3);
  CHECK(page.find("mapper found no valid mapping &lt;x&gt;") != std::string::npos);  // the error in a tooltip
  CHECK(page.find("max 10 &lt;b&gt;") != std::string::npos);                         // a violation too
  CHECK(page.find("toy &lt;sweep&gt;") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("http") == std::string::npos);
  CHECK(page.find("<h2>Parameters</h2>") != std::string::npos);
  CHECK(page.find("latency_s (cycle)") != std::string::npos);
  CHECK(render(s) == page);
}

TEST_CASE("html report: one objective plots it against area") {
  Sweep s = sweep();
  s.manifest["objectives"].erase(1);
  s.pareto["objectives"].erase(1);
  const std::string page = render(s);
  CHECK(page.find("area (mm\xc2\xb2)") != std::string::npos);
  CHECK(count_class(page, "sweep-point") == 20);
}

TEST_CASE("html report: sweep page takes what loom sweep writes beyond the minimum") {
  // A throughput objective (maximised), a min constraint, no cycle-level fidelity for the front,
  // and a front point whose re-simulation failed (sweep/sweep_results.cpp writes its error).
  Sweep s = sweep();
  const Json throughput = {{"name", "throughput"}, {"metric", "inferences_per_s"}, {"direction", "max"}};
  s.manifest["objectives"][1] = throughput;
  s.pareto["objectives"][1] = throughput;
  s.manifest["constraints"].push_back({{"metric", "inferences_per_s"}, {"min", 50}});
  s.manifest["fidelity"]["pareto"] = "none";
  s.manifest["strategy_settings"] = {{"kind", "grid"}};  // extra keys are ignored
  s.pareto["front"][1]["cycle"] = {{"metrics", Json::object()}, {"workloads", Json::object()}, {"error", "too big <x>"}};
  const std::string page = render(s);
  CHECK(count_class(page, "sweep-point") == 20);
  CHECK(count_class(page, "front-point") == 4);
  CHECK(count_class(page, "resim-point") == 2);
  CHECK(page.find("failed: too big &lt;x&gt;") != std::string::npos);
  CHECK(page.find("inferences_per_s \xe2\x89\xa5 50") != std::string::npos);
  CHECK(page.find("higher is better") != std::string::npos);
}

TEST_CASE("html report: sweep page reads strictly and names the document and path") {
  Sweep s = sweep();
  s.points[3].erase("feasible");
  CHECK(error_field([&] { render(s); }) == "points[3].feasible");
  s = sweep();
  s.points[4]["metrics"].erase("energy_j");
  CHECK(error_field([&] { render(s); }) == "points[4].metrics.energy_j");
  s = sweep();
  s.manifest["strategy"] = "annealing";
  CHECK(error_field([&] { render(s); }) == "sweep.strategy");
  s = sweep();
  s.pareto["front"][0]["cycle"]["metrics"].erase("latency_s");
  CHECK(error_field([&] { render(s); }) == "pareto.front[0].cycle.metrics.latency_s");
  s = sweep();
  s.pareto["objectives"][1]["direction"] = "max";
  CHECK(error_field([&] { render(s); }) == "pareto.objectives");
  s = sweep();
  s.manifest["objectives"][0]["metric"] = "speed";
  CHECK(error_field([&] { render(s); }) == "sweep.objectives[0].metric");
  s = sweep();
  s.manifest["constraints"][0].erase("max");
  CHECK(error_field([&] { render(s); }) == "sweep.constraints[0]");
}

// Render time is a benchmark's (bench_sweep prints the page's), not a unit test's.
TEST_CASE("html report: large inputs render every mark") {
  const std::string run = render_run_report(summary(54));
  CHECK(count_class(run, "layer-point") == 54);
  CHECK(count_class(run, "latency-bar") == 54);
  CHECK(count_class(run, "energy-segment") == 54 * 3);
  CHECK(count_class(run, "traffic-bar") == 54 * 2);
  const Sweep s = sweep(10000);
  const std::string page = render(s);
  CHECK(count_class(page, "sweep-point") == 10000);
  CHECK(count_class(page, "infeasible-point") == 2);
}

TEST_CASE("html report: pages pass the headless-browser check") {
  if (std::system("command -v chromium > /dev/null 2>&1") != 0)
    FAIL("chromium not found: the headless-browser check needs Debian's chromium; bash scripts/install-deps installs it");
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("loom-report-html-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string script = std::string(LOOM_SOURCE_DIR) + "/tests/browser/check_report.py";
  struct Case {
    std::string name, html, expect;
  };
  const Case cases[] = {
      {"run", render_run_report(summary()),
       "--expect layer-point=3 --expect network-point=1 --expect ridge-point=2 --expect latency-bar=3 "
       "--expect energy-segment=8 --expect traffic-bar=5"},
      {"sweep", render(sweep()),
       "--expect sweep-point=20 --expect infeasible-point=2 --expect front-point=4 --expect resim-point=3"},
  };
  bool passed = true;
  for (const Case& c : cases) {
    const fs::path html = dir / (c.name + ".html"), png = dir / (c.name + ".png"), log = dir / (c.name + ".log");
    std::ofstream(html) << c.html;
    const std::string cmd = "timeout 120 python3 '" + script + "' '" + html.string() + "' " + c.expect + " --screenshot '" +
                            png.string() + "' > '" + log.string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    std::ifstream in(log);
    const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (status != 0) FAIL_CHECK(c.name << " page failed the browser check (" << cmd << "):\n" << output);
    else MESSAGE(output);
    passed = passed && status == 0;
  }
  if (passed) fs::remove_all(dir);  // on failure the pages, screenshots and logs stay for a look
}
