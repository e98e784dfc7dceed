// Profiler benchmarks: the tracer's hot path and an event as recorded with its two clock reads (goal: at most
// 20 ns per event beyond the clock reads), the sustained write rate into SQLite (goal at least 1 M events/s), the
// import rate of a large Chrome trace (100 MB in the full run), and the import plus replay-input extraction of a
// real DDP trace grown to 100 MB (goal at least 50 MB/s; printed phase by phase, with the store write after it);
// each goal judged met or MISSED. Each figure comes with a baseline measured in the same run: a plain vector push
// for the hot path, a bare prepared INSERT into an unindexed table for the store, a DOM parse
// (nlohmann::json::parse) for the import; for the DDP import also reading the file and tokenising it (nlohmann SAX
// keeping nothing), each on wall and on this thread's CPU time.
//
//   bench_profiler [--quick | --ddp-import]     --ddp-import: the 100 MB DDP import alone
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "profiler/clock.h"
#include "profiler/cpu_tracer.h"
#include "profiler/import_chrome.h"
#include "profiler/project.h"
#include "profiler/rank_file.h"

using namespace pacer::profiler;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Every goal is judged, not just printed next to its figure; the verdicts are summed up at the end.
int goalsMissed = 0, goalsJudged = 0;
void judge(const char* goal, double value, double limit, bool atMost) {
    const bool met = atMost ? value <= limit : value >= limit;
    ++goalsJudged;
    goalsMissed += met ? 0 : 1;
    std::printf("goal %s: %.2f -> %s\n", goal, value, met ? "met" : "MISSED");
}

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        path = std::filesystem::temp_directory_path() / ("pacer_bench_profiler_" + std::to_string(nowNs()));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

void benchHotPath(long n) {
    // Baseline: the same 56-byte record into a preallocated vector, no atomics, no thread lookup.
    std::vector<TraceRecord> plain(static_cast<std::size_t>(n));
    auto t0 = Clock::now();
    for (long i = 0; i < n; ++i) {
        TraceRecord& r = plain[static_cast<std::size_t>(i)];
        r.start = i; r.end = i + 1; r.bytes = i; r.track = 1; r.nameId = 2; r.iteration = 3;
        r.layer = 4; r.tensor = 5; r.segment = 6; r.priority = 7; r.kind = EventKind::AllReduce;
    }
    asm volatile("" : : "r"(plain.data()) : "memory");
    const double baseNs = secondsSince(t0) * 1e9 / static_cast<double>(n);

    CpuTracer tracer(0, 1u << 20);
    const int name = tracer.internName("allreduce fc1.weight[0]");
    // Warm-up: registers the thread's ring.
    for (int i = 0; i < 1000; ++i) tracer.record(EventKind::AllReduce, 1, name, i, i + 1, 0);
    (void)tracer.drain();
    // Timed in chunks of half a ring, drained between chunks (untimed), so the figure is the hot path itself and
    // not the drop path of a ring the flush thread could not empty on a loaded machine.
    const long chunk = 1 << 19;
    double recSecs = 0;
    std::size_t kept = 0;
    for (long done = 0; done < n; done += chunk) {
        const long m = std::min(chunk, n - done);
        t0 = Clock::now();
        for (long i = done; i < done + m; ++i) tracer.record(EventKind::AllReduce, 1, name, i, i + 1, 3, 4, 5, 6, i, 7);
        recSecs += secondsSince(t0);
        kept += tracer.drain().size();
    }
    const double recNs = recSecs * 1e9 / static_cast<double>(n);

    t0 = Clock::now();
    std::int64_t sink = 0;
    for (long i = 0; i < n; ++i) sink += nowNs();
    asm volatile("" : : "r"(sink) : "memory");
    const double clockNs = secondsSince(t0) * 1e9 / static_cast<double>(n);

    // The event as every real one is recorded: its start and end read from the clock around the work, then the
    // record. Chunked and drained like the hot path above.
    double asRecordedSecs = 0;
    for (long done = 0; done < n; done += chunk) {
        const long m = std::min(chunk, n - done);
        t0 = Clock::now();
        for (long i = done; i < done + m; ++i) {
            const std::int64_t start = nowNs();
            tracer.record(EventKind::AllReduce, 1, name, start, nowNs(), 3, 4, 5, 6, i, 7);
        }
        asRecordedSecs += secondsSince(t0);
        kept += tracer.drain().size();
    }
    const double asRecordedNs = asRecordedSecs * 1e9 / static_cast<double>(n);

    // Two producers at once (a rank's compute and comm threads), each timed after its own warm-up.
    const int threads = 2;
    const long perProducer = std::min<long>(n / threads, 1 << 19);  // fits the ring: no drops, no drain needed
    CpuTracer shared(0, 1u << 20);
    std::vector<std::thread> pool;
    std::vector<double> perThread(threads);
    std::atomic<int> ready{0};
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            for (int i = 0; i < 1000; ++i) shared.record(EventKind::Forward, t, name, i, i + 1, 0);
            ready.fetch_add(1);
            while (ready.load() < threads) std::this_thread::yield();
            const auto s = Clock::now();
            for (long i = 0; i < perProducer; ++i) shared.record(EventKind::Forward, t, name, i, i + 1, 0);
            perThread[static_cast<std::size_t>(t)] = secondsSince(s) * 1e9 / static_cast<double>(perProducer);
        });
    for (auto& th : pool) th.join();
    double perEventMt = 0;
    for (double v : perThread) perEventMt = std::max(perEventMt, v);
    (void)shared.drain();
    std::printf("tracer hot path (record only): %.1f ns/event, baseline vector push %.1f ns/event, ratio %.2fx; "
                "%zu kept, %llu dropped of %ld\n",
                recNs, baseNs, recNs / baseNs, kept, static_cast<unsigned long long>(tracer.dropped()), 2 * n);
    std::printf("event as recorded (two clock reads + record): %.1f ns/event; one clock read (nowNs) %.1f ns\n",
                asRecordedNs, clockNs);
    std::printf("tracer, %d threads at once: %.1f ns/event (slowest thread)\n", threads, perEventMt);
    // The goal is the tracer's own cost: what an event costs beyond the two clock reads any timing pays.
    judge("tracer cost per event beyond its clock reads <= 20 ns", asRecordedNs - 2 * clockNs, 20, true);
}

void benchStore(long n, const std::filesystem::path& dir) {
    // Baseline: a bare prepared INSERT of the same 12 integers into an unindexed table, one transaction.
    {
        const std::string path = (dir / "baseline.sqlite").string();
        sqlite3* db = nullptr;
        sqlite3_open(path.c_str(), &db);
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE t(a,b,c,d,e,f,g,h,i,j,k,l)",
                     nullptr, nullptr, nullptr);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, nullptr);
        const auto t0 = Clock::now();
        sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
        for (long i = 0; i < n; ++i) {
            for (int c = 1; c <= 12; ++c) sqlite3_bind_int64(st, c, i + c);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        const double secs = secondsSince(t0);
        sqlite3_finalize(st);
        sqlite3_close(db);
        std::printf("sqlite baseline (bare insert, no index): %.2f M rows/s\n", static_cast<double>(n) / secs / 1e6);
        const double baseRate = static_cast<double>(n) / secs;

        auto writer = RankFileWriter::create((dir / "rank0.pacer").string(), RunInfo{"bench", "pace", "", 0, 1, 1, "cpu", 0}, 0);
        if (!writer) {
            std::printf("store: %s\n", writer.message().c_str());
            std::exit(1);
        }
        CpuTracer tracer(0, 1u << 22);
        const int compute = tracer.addTrack(TrackKind::Compute, "compute");
        const int comm = tracer.addTrack(TrackKind::Comm, "comm");
        std::vector<int> names;
        for (int l = 0; l < 50; ++l) names.push_back(tracer.internName("layer" + std::to_string(l)));
        // Batches as a worker flushes them: one per "iteration" of 100 k events.
        const long batch = std::min<long>(n, 100'000);
        double writeSecs = 0;
        long written = 0;
        std::int64_t t = 0;
        while (written < n) {
            for (long i = 0; i < batch; ++i, t += 1000)
                tracer.record(i % 3 ? EventKind::Forward : EventKind::AllReduce, i % 3 ? compute : comm,
                              names[static_cast<std::size_t>(i % 50)], t, t + 900, static_cast<int>(written / batch),
                              static_cast<int>(i % 50), static_cast<int>(i % 50), 0, 4096, 1);
            const auto t1 = Clock::now();
            const Status s = (*writer)->flush(tracer);
            writeSecs += secondsSince(t1);
            if (!s.ok()) {
                std::printf("store: %s\n", s.message().c_str());
                std::exit(1);
            }
            written += batch;
        }
        const auto tc = Clock::now();
        (void)(*writer)->close();
        const double closeSecs = secondsSince(tc);
        const double rate = static_cast<double>(written) / writeSecs;
        std::printf("store: %.2f M events/s sustained into a rank file, %ld events, ratio to bare "
                    "insert %.2fx; close (time index + checkpoint) %.2f s, %.2f M events/s with it; file %.1f MB\n",
                    rate / 1e6, written, rate / baseRate, closeSecs,
                    static_cast<double>(written) / (writeSecs + closeSecs) / 1e6,
                    static_cast<double>(std::filesystem::file_size(dir / "rank0.pacer")) / 1e6);
        judge("store write rate >= 1 M events/s", rate / 1e6, 1.0, false);
    }
}

// A Kineto-shaped trace of about `bytes` bytes: CPU ops, runtime calls, kernels with correlation, NCCL kernels.
long writeKinetoTrace(const std::string& path, std::size_t bytes) {
    std::ofstream out(path);
    out << "{\"schemaVersion\":1,\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0,\"world_size\":8},\n"
           "\"traceEvents\":[\n";
    long events = 0;
    double ts = 1700000000000.0;
    std::size_t written = 0;
    char line[512];
    while (written < bytes) {
        const int step = static_cast<int>(events / 1000);
        int len;
        if (events % 1000 == 0)
            len = std::snprintf(line, sizeof line, "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":50000.0}",
                                events ? ",\n" : "", step, ts);
        else if (events % 3 == 0)
            len = std::snprintf(line, sizeof line, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":0,\"tid\":20,\"ts\":%.3f,\"dur\":120.250,\"args\":{\"device\":0,\"stream\":20,\"correlation\":%ld,\"grid\":[8,1,1],\"block\":[512,1,1]}}",
                                ts, events);
        else if (events % 3 == 1)
            len = std::snprintf(line, sizeof line, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":4.125,\"args\":{\"correlation\":%ld,\"cbid\":211}}",
                                ts, events);
        else
            len = std::snprintf(line, sizeof line, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":30.500,\"args\":{\"External id\":%ld,\"Sequence number\":%ld}}",
                                ts, events, events);
        out.write(line, len);
        written += static_cast<std::size_t>(len);
        ts += 5.125;
        ++events;
    }
    out << "\n]}\n";
    return events;
}

void benchImport(std::size_t bytes, const std::filesystem::path& dir) {
    const std::string path = (dir / "kineto.json").string();
    const long events = writeKinetoTrace(path, bytes);
    const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;

    auto t0 = Clock::now();
    {
        std::ifstream in(path);
        auto doc = nlohmann::json::parse(in);
        asm volatile("" : : "r"(&doc) : "memory");
    }
    const double domSecs = secondsSince(t0);

    t0 = Clock::now();
    RunInfo info;
    auto trace = parseChromeTrace({path}, &info);
    const double secs = secondsSince(t0);
    if (!trace) {
        std::printf("import: %s\n", trace.message().c_str());
        std::exit(1);
    }
    std::printf("chrome import: %.1f MB (%ld events) in %.2f s = %.1f MB/s, %.2f M events/s; baseline DOM parse "
                "%.2f s, ratio %.2fx\n",
                mb, events, secs, mb / secs, static_cast<double>(trace->events.size()) / secs / 1e6, domSecs,
                secs / domSecs);
}

// A real DDP job's trace grown to about `bytes`: the sample's events (rank 0 of a two-GPU ResNet-50 job over NCCL,
// samples/traces/ddp_nccl_rank0.json) repeated with times shifted by its span, steps renumbered and correlation
// ids offset, so the import extracts the replay input of every copy as of the original.
long writeDdpTrace(const std::string& path, std::size_t bytes) {
    std::ifstream in(PACER_SAMPLES_DIR "/traces/ddp_nccl_rank0.json");
    const nlohmann::json sample = nlohmann::json::parse(in);
    const auto& events = sample.at("traceEvents");
    double lo = 1e300, hi = -1e300;
    for (const auto& e : events)
        if (e.contains("ts") && e.value("ph", "") == "X") {
            lo = std::min(lo, e["ts"].get<double>());
            hi = std::max(hi, e["ts"].get<double>() + e.value("dur", 0.0));
        }
    nlohmann::json meta = sample;
    meta.erase("traceEvents");
    std::ofstream out(path);
    std::string head = meta.dump();
    head.pop_back();  // the closing brace: traceEvents follows
    out << head << ",\"traceEvents\":[\n";
    long written = 0, count = 0;
    for (int copy = 0; static_cast<std::size_t>(written) < bytes; ++copy) {
        for (nlohmann::json e : events) {
            if (copy > 0 && e.value("ph", "") == "M") continue;
            if (e.contains("ts")) e["ts"] = e["ts"].get<double>() + copy * (hi - lo + 1000.0);
            const std::string name = e.value("name", "");
            if (name.rfind("ProfilerStep#", 0) == 0) e["name"] = "ProfilerStep#" + std::to_string(std::stoi(name.substr(13)) + 3 * copy);
            if (e.contains("args") && e["args"].contains("correlation"))
                e["args"]["correlation"] = e["args"]["correlation"].get<std::int64_t>() + 1'000'000LL * copy;
            const std::string text = (count ? ",\n" : "") + e.dump();
            out << text;
            written += static_cast<long>(text.size());
            ++count;
        }
    }
    out << "\n]}\n";
    return count;
}

// A SAX handler that keeps nothing: what tokenising the JSON costs, the floor for any importer built on nlohmann.
struct NullSax {
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(nlohmann::json::number_integer_t) { return true; }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { return true; }
    bool number_float(nlohmann::json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(nlohmann::json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(std::string&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

// Import plus replay-input extraction of a large real DDP trace, phase by phase, against baselines on the same file
// measured in the same rounds: reading the bytes, tokenising them with nlohmann's SAX parser (keeping nothing) and
// a DOM parse. Wall and this thread's CPU time each: on a machine shared with builds, wall time measures the
// neighbours as much as the code. The store write that `pacer-cli import` adds is timed after it and reported
// with the end-to-end figure; the goal is the import and extraction.
void benchDdpImport(std::size_t bytes, const std::filesystem::path& dir, int rounds) {
    const std::string path = (dir / "ddp.json").string();
    const long events = writeDdpTrace(path, bytes);
    const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    struct Timing {
        std::vector<double> wall, cpu;
        void add(double w, double c) {
            wall.push_back(w);
            cpu.push_back(c);
        }
    };
    Timing read, tokens, dom, ours, parse, tracks, replayInput, store, endToEnd;
    auto timed = [](Timing& t, auto&& work) {
        const auto t0 = Clock::now();
        const std::int64_t c0 = threadCpuNs();
        work();
        t.add(secondsSince(t0), static_cast<double>(threadCpuNs() - c0) * 1e-9);
    };
    auto add = [](Timing& t, const ImportPhases::Time& p) { t.add(static_cast<double>(p.wall) * 1e-9, static_cast<double>(p.cpu) * 1e-9); };
    std::size_t tensors = 0, replayEvents = 0;
    for (int round = 0; round < rounds; ++round) {  // interleaved, medians: other work on the machine moves all
        timed(read, [&] {
            std::ifstream in(path, std::ios::binary);
            std::vector<char> buf(1 << 20);
            std::size_t sum = 0;
            while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) sum += static_cast<std::size_t>(in.gcount());
            asm volatile("" : : "r"(sum) : "memory");
        });
        timed(tokens, [&] {
            std::ifstream in(path, std::ios::binary);
            NullSax sax;
            nlohmann::json::sax_parse(in, &sax);
        });
        timed(dom, [&] {
            std::ifstream in(path);
            auto doc = nlohmann::json::parse(in);
            asm volatile("" : : "r"(&doc) : "memory");
        });
        RunInfo info;
        ImportPhases phases;
        Result<RunTrace> trace = errorStatus("not run");
        timed(ours, [&] { trace = parseChromeTrace({path}, &info, &phases); });
        if (!trace || info.policy != "ddp") {
            std::printf("ddp import: %s\n", trace ? "no replay input extracted" : trace.message().c_str());
            std::exit(1);
        }
        add(parse, phases.parse);
        add(tracks, phases.tracks);
        add(replayInput, phases.replayInput);
        tensors = trace->tensors.size();
        replayEvents = 0;
        for (const auto& e : trace->events) replayEvents += e.kind == EventKind::AllReduce && e.bytes > 0;
        const std::string project = (dir / ("ddp_" + std::to_string(round) + ".pacer")).string();
        timed(store, [&] {
            if (auto run = writeRun(project, *trace, info, "chrome"); !run) {
                std::printf("ddp import: store: %s\n", run.message().c_str());
                std::exit(1);
            }
        });
        endToEnd.add(ours.wall.back() + store.wall.back(), ours.cpu.back() + store.cpu.back());
        std::filesystem::remove(project);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double secs = median(ours.wall), cpu = median(ours.cpu);
    std::printf("ddp import + replay input: %.1f MB (%ld events, %zu tensors, %zu bucket all-reduces), median of %d: "
                "%.2f s = %.1f MB/s wall (goal >= 50), %.2f s = %.1f MB/s on CPU time\n",
                mb, events, tensors, replayEvents, rounds, secs, mb / secs, cpu, mb / cpu);
    auto phase = [&](const char* what, const Timing& t) {
        std::printf("  phase %-38s %5.2f s wall, %5.2f s CPU (%6.1f MB/s CPU)\n", what, median(t.wall), median(t.cpu),
                    mb / median(t.cpu));
    };
    phase("parse (read, tokenise, events)", parse);
    phase("tracks (kinds, tracks, iterations)", tracks);
    phase("replay input (profiler/kineto_ddp)", replayInput);
    phase("then the store write (writeRun)", store);
    std::printf("  import into a project, end to end (not the goal): %.1f MB/s wall, %.1f MB/s CPU\n",
                mb / median(endToEnd.wall), mb / median(endToEnd.cpu));
    auto baseline = [&](const char* what, const Timing& t) {
        std::printf("  baseline %-36s %6.1f MB/s wall, %6.1f MB/s CPU; import takes %.2fx its CPU time\n", what,
                    mb / median(t.wall), mb / median(t.cpu), cpu / median(t.cpu));
    };
    baseline("read the file (1 MiB blocks)", read);
    baseline("tokenise (nlohmann SAX, keeps nothing)", tokens);
    baseline("DOM parse (nlohmann::json::parse)", dom);
    judge("ddp import + replay input >= 50 MB/s", mb / secs, 50, false);
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    TempDir dir;
    if (argc > 1 && std::strcmp(argv[1], "--ddp-import") == 0) {  // the 100 MB DDP import alone
        benchDdpImport(100u << 20, dir.path, 5);
        return 0;
    }
    benchHotPath(quick ? 200'000 : 20'000'000);
    benchStore(quick ? 100'000 : 2'000'000, dir.path);
    benchImport(quick ? (2u << 20) : (100u << 20), dir.path);
    benchDdpImport(quick ? (2u << 20) : (100u << 20), dir.path, quick ? 1 : 3);
    // Judged on this run's figures; on a loaded machine (other builds, CTest's parallel tests) a miss can be the
    // load, so the verdict is reported, not turned into a failing exit status.
    std::printf("goals: %d of %d met%s\n", goalsJudged - goalsMissed, goalsJudged,
                quick ? " (quick mode: small samples, indicative only)" : "");
    return 0;
}
