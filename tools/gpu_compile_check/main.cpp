// tack_gpu_compile_check: compiles a folder of GPU sources that the driver
// dumped (TACK_EMIT_SOURCES, src/driver/source_dump.h) with each dialect's
// own compiler:
//
//   cuda/*.cu       NVRTC (dlopen'd from $TACK_CUDA_HOME or /usr/local/cuda)
//                   to PTX for compute_90 with the dialect's compile options
//                   and --Ofast-compile=mid; --full and --full-every's
//                   sample also assemble the PTX with ptxas -arch=sm_90
//                   (NVRTC's PTX fails ptxas only where inline assembly is
//                   wrong, which the sample and compile_check_test.cpp's
//                   curated sources reach; ptxas -O0 on every source was
//                   a third of the CUDA check's time)
//   hip/*.hip       hipcc -std=c++17 --offload-arch=gfx90a, device side,
//                   -fsyntax-only
//   opencl/*.cl     clang-19 -x cl -cl-std=CL3.0 -Werror -fsyntax-only
//   metal/*.metal   clang++-19 -std=c++17 -fsyntax-only against tests/shims
//   */*.error       a printer failure the dump recorded; always a failure
//
//   tack_gpu_compile_check [--jobs N] [--full] [--full-every N] [--strict] [--dialect NAME]...
//                          [--shims DIR] FOLDER
//
// A compile check asks whether a source is valid, which no optimization
// level changes; optimizing thousands of kernels would take the two CI cores
// several times longer (hipcc's AMDGPU back end most of all). --full compiles
// as the runtime does instead: NVRTC and ptxas at their default levels, and
// hipcc to a code object; --full-every N does so for every Nth source of
// each dialect besides the check of all of them (a sample that reaches the
// target's code generation at a fraction of the cost). The prelude's
// helpers, where target-specific code
// generation could fail, reach code objects in compile_check_test.cpp, which
// runs this tool with --full over its curated samples.
//
// -Werror applies to the OpenCL C and MSL checks with one allowance for
// kernels as users write them: a self-comparison (`x < x`) is the author's
// and compiles everywhere. --strict drops it, for curated samples.
//
// Each compiler runs with TMPDIR in the tool's scratch folder, which is
// removed at the end: hipcc leaves an empty folder per input in TMPDIR.
//
// Starting a compiler costs more than most sources do (hipcc: a second or
// two), so sources are compiled in bundles. A C++ dialect's bundle is one
// translation unit in which each source sits in a namespace of its own, its
// preamble (includes, `using namespace metal`) hoisted once and `extern "C"`
// dropped so that entry names do not collide; `#line` keeps diagnostics
// pointing into the dumped file. OpenCL C has no namespaces: its bundle
// renames each source's file-scope names (all of which begin with tk_) to
// begin with tk<i>_ instead. A bundle that fails is compiled
// again one source at a time, as the runtime compiles it, and each failing
// source is reported with its file name and the compiler's message.
//
// A dialect whose compiler is missing is skipped with a message naming what
// to install. Exit status: 0 when every source compiled, 1 when one did not,
// 2 for a usage error.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/gpu/runtime_compiler.h"
#include "codegen/cfamily/dialect.h"

#ifndef TACK_SHIM_DIR
#define TACK_SHIM_DIR ""
#endif

namespace {

namespace fs = std::filesystem;
using tack::codegen::cfamily::Dialect;

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

// `name` as an absolute path, or found on PATH; empty when neither.
std::string find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return executable(name) ? name : "";
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
        if (!dir.empty() && executable(fs::path(dir) / name)) return (fs::path(dir) / name).string();
    return "";
}

struct Outcome {
    bool ok = false;
    std::string log;
};

// Runs a shell command, its output captured and its temporary files under
// the log's folder.
Outcome run(const std::string& command, const fs::path& log) {
    int rc = std::system(("TMPDIR=" + quote(log.parent_path().string()) + " " + command + " > " + quote(log.string()) +
                          " 2>&1").c_str());
    return {rc == 0, read_text(log)};
}

// ---- Dialects

struct Target {
    Target(Dialect d, const char* folder, const char* extension, size_t bundle, std::string compiled_by)
        : dialect(d), folder(folder), extension(extension), bundle(bundle), compiled_by(std::move(compiled_by)) {}

    Dialect dialect;
    const char* folder;
    const char* extension;
    size_t bundle;             // sources per bundle (at most)
    std::string compiled_by;   // for the summary line
    std::string missing;       // what is not installed; empty when ready
    std::vector<std::string> files;  // the sources, sorted
    std::vector<std::string> errors; // the dump's .error files
    std::vector<std::string> failed; // failing sources, with their messages
    size_t compiled = 0;
    size_t sampled = 0;  // --full-every: how many sources were also compiled fully
    std::string compiled_fully;  // what --full does instead, where it differs
    double seconds = 0;
};

// The warning a kernel's author may cause and every target accepts (see the
// top of the file); --strict keeps it.
const std::string kUserCodeWarnings = "-Wno-tautological-compare";

struct Tools {
    std::string cuda_home = "/usr/local/cuda";
    std::string ptxas, hipcc, clang, clangxx, shims = TACK_SHIM_DIR;
    std::unique_ptr<tack::backends::gpu::RuntimeCompiler> nvrtc;
    bool full = false;    // --full: every optimization the runtime's compilers apply
    size_t full_every = 0;  // --full-every N: every Nth source also as --full compiles it
    bool strict = false;  // --strict: no allowance for kernel authors' warnings
    std::string allowances() const { return strict ? std::string() : " " + kUserCodeWarnings; }
};


// `text` with each identifier that begins with tk_ beginning with `prefix`
// instead.
std::string with_prefix(const std::string& text, const std::string& prefix) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "tk_") == 0 && (i == 0 || !word(text[i - 1]))) {
            out += prefix;
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// Compiles the listed sources of one dialect, as one bundle when there are
// several; `log` and its temporaries go under `scratch`.
Outcome compile(const Target& t, const Tools& tools, const std::vector<std::string>& files, const fs::path& scratch,
                bool full) {
    const auto& table = tack::codegen::cfamily::table(t.dialect);
    std::string options;
    for (auto& o : table.compile_options) options += " " + quote(o);
    fs::path source;
    std::string text;
    if (files.size() == 1) {
        source = files[0];
        text = read_text(source);
    } else if (t.dialect == Dialect::OpenCL) {
        // One translation unit: every name a source declares at file scope
        // begins with tk_, which becomes tk<i>_ in the i-th source.
        for (size_t i = 0; i < files.size(); ++i)
            text += "#line 1 \"" + files[i] + "\"\n" + with_prefix(read_text(files[i]), "tk" + std::to_string(i) + "_") +
                    "\n";
        source = scratch / (std::string("bundle") + t.extension);
        write_text(source, text);
    } else {
        // One translation unit: the preamble once, each source in its own
        // namespace. Removed text becomes blank lines, so #line numbers stay
        // those of the dumped file.
        const std::string preamble = table.preamble;
        text = preamble;
        for (size_t i = 0; i < files.size(); ++i) {
            std::string s = read_text(files[i]);
            if (size_t at = preamble.empty() ? std::string::npos : s.find(preamble); at != std::string::npos)
                s.replace(at, preamble.size(), std::string(std::count(preamble.begin(), preamble.end(), '\n'), '\n'));
            for (size_t at; (at = s.find("extern \"C\" ")) != std::string::npos;) s.erase(at, 11);
            text += "namespace tk_check_" + std::to_string(i) + " {\n#line 1 \"" + files[i] + "\"\n" + s + "\n}\n";
        }
        source = scratch / (std::string("bundle") + t.extension);
        write_text(source, text);
    }
    switch (t.dialect) {
        case Dialect::Cuda: {
            std::vector<std::string> opts = {"--gpu-architecture=compute_90"};
            opts.insert(opts.end(), table.compile_options.begin(), table.compile_options.end());
            if (!full) opts.push_back("--Ofast-compile=mid");
            std::string ptx, message;
            if (!tools.nvrtc->to_ptx(text, source.string(), opts, &ptx, &message)) return {false, message};
            // The check ends at NVRTC's PTX (file comment); --full assembles it.
            if (!full) return {true, ""};
            fs::path ptx_file = scratch / "bundle.ptx";
            write_text(ptx_file, ptx);
            Outcome o = run(quote(tools.ptxas) + " -arch=sm_90 -o /dev/null " + quote(ptx_file.string()), scratch / "log");
            if (!o.ok) o.log = "ptxas, on the PTX NVRTC printed for " + source.string() + ":\n" + o.log;
            return o;
        }
        case Dialect::Hip:
            return run(quote(tools.hipcc) + " -std=c++17 --offload-arch=gfx90a --offload-device-only -x hip" + options +
                           (full ? " -c -o " + quote((scratch / "bundle.o").string()) : std::string(" -fsyntax-only")) +
                           " " + quote(source.string()),
                       scratch / "log");
        case Dialect::Metal:
            return run(quote(tools.clangxx) +
                           " -std=c++17 -fsyntax-only -Wall -Wno-unknown-attributes -Wno-unused-variable "
                           "-Wno-unused-but-set-variable -Werror" + tools.allowances() + " -x c++ -I " + quote(tools.shims) + " " +
                           quote(source.string()),
                       scratch / "log");
        case Dialect::OpenCL:
            return run(quote(tools.clang) + " -x cl -Werror" + tools.allowances() + " -fsyntax-only" + options + " " +
                           quote(source.string()),
                       scratch / "log");
    }
    return {false, "unknown dialect"};
}

std::string first_lines(const std::string& text, size_t n) {
    size_t at = 0;
    for (size_t i = 0; i < n && at != std::string::npos; ++i) at = text.find('\n', at + 1);
    if (at == std::string::npos) return text;
    return text.substr(0, at) + "\n[... " + std::to_string(std::count(text.begin() + at, text.end(), '\n')) +
           " more lines]";
}

struct Job {
    Target* target;
    std::vector<std::string> files;
    bool full = false;  // compiled as --full compiles
};

int usage() {
    std::cerr << "usage: tack_gpu_compile_check [--jobs N] [--full] [--full-every N] [--strict] "
                 "[--dialect cuda|hip|opencl|metal]... "
                 "[--shims DIR] "
                 "FOLDER\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned jobs = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
    std::vector<std::string> only;
    std::string folder;
    Tools tools;
    if (const char* e = std::getenv("TACK_CUDA_HOME"); e && *e) tools.cuda_home = e;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--jobs" && i + 1 < argc) jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
        else if (a == "--dialect" && i + 1 < argc) only.push_back(argv[++i]);
        else if (a == "--shims" && i + 1 < argc) tools.shims = argv[++i];
        else if (a == "--full") tools.full = true;
        else if (a == "--full-every" && i + 1 < argc) tools.full_every = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
        else if (a == "--strict") tools.strict = true;
        else if (a.rfind("--", 0) == 0 || !folder.empty()) return usage();
        else folder = a;
    }
    if (folder.empty()) return usage();
    if (!fs::is_directory(folder)) {
        std::cerr << "tack_gpu_compile_check: " << folder << " is not a folder\n";
        return 2;
    }
    folder = fs::absolute(folder).lexically_normal().string();

    // Bundle sizes: large enough that starting the compiler is a small part
    // of a bundle, small enough that the two workers share the work evenly.
    Target targets[] = {
        {Dialect::Cuda, "cuda", ".cu", 150, tools.full ? "NVRTC + ptxas" : "NVRTC (--Ofast-compile=mid) to PTX"},
        {Dialect::Hip, "hip", ".hip", 150, tools.full ? "hipcc to code objects" : "hipcc -fsyntax-only (device side)"},
        {Dialect::OpenCL, "opencl", ".cl", 150, "clang-19 -x cl"},
        {Dialect::Metal, "metal", ".metal", 150, "clang++-19 against the Metal shim"},
    };
    targets[0].compiled_fully = "NVRTC + ptxas at their default levels";
    targets[1].compiled_fully = "hipcc to gfx90a code objects";
    for (auto& o : only)
        if (std::none_of(std::begin(targets), std::end(targets), [&](const Target& t) { return o == t.folder; }))
            return usage();

    std::vector<Job> queue;
    for (auto& t : targets) {
        if (!only.empty() && std::find(only.begin(), only.end(), t.folder) == only.end()) continue;
        fs::path dir = fs::path(folder) / t.folder;
        if (fs::is_directory(dir))
            for (auto& e : fs::directory_iterator(dir)) {
                if (!e.is_regular_file()) continue;
                if (e.path().extension() == t.extension) t.files.push_back(e.path().string());
                else if (e.path().extension() == ".error") t.errors.push_back(e.path().string());
            }
        std::sort(t.files.begin(), t.files.end());
        std::sort(t.errors.begin(), t.errors.end());
        if (t.files.empty()) continue;
        switch (t.dialect) {
            case Dialect::Cuda: {
                fs::path lib = fs::path(tools.cuda_home) / "lib64/libnvrtc.so";
                tools.ptxas = find_program((fs::path(tools.cuda_home) / "bin/ptxas").string());
                std::string why;
                if (!fs::exists(lib))
                    t.missing = lib.string() + " not found: install the CUDA toolkit there or set TACK_CUDA_HOME";
                else if (!(tools.nvrtc = tack::backends::gpu::RuntimeCompiler::open(tack::backends::gpu::kNvrtc, lib.string(), &why)))
                    t.missing = why;
                else if (tools.ptxas.empty())
                    t.missing = tools.cuda_home + "/bin/ptxas not found: install the CUDA toolkit's ptxas";
                break;
            }
            case Dialect::Hip:
                tools.hipcc = find_program("hipcc");
                if (tools.hipcc.empty()) t.missing = "hipcc not found: install Debian's hipcc libamdhip64-dev rocm-device-libs";
                break;
            case Dialect::OpenCL:
                tools.clang = find_program("clang-19");
                if (tools.clang.empty()) t.missing = "clang-19 not found: install Debian's clang-19";
                break;
            case Dialect::Metal:
                tools.clangxx = find_program("clang++-19");
                if (tools.clangxx.empty()) t.missing = "clang++-19 not found: install Debian's clang-19";
                else if (!fs::exists(fs::path(tools.shims) / "metal_shim.h"))
                    t.missing = "the Metal shim is not in " + tools.shims + ": pass --shims DIR (tests/shims)";
                break;
        }
        if (!t.missing.empty()) continue;
        // Even bundles, at least one per worker.
        size_t count = std::max<size_t>(jobs, (t.files.size() + t.bundle - 1) / t.bundle);
        count = std::min(count, t.files.size());
        for (size_t b = 0; b < count; ++b) {
            Job j{&t, {}, tools.full};
            for (size_t i = b; i < t.files.size(); i += count) j.files.push_back(t.files[i]);
            queue.push_back(std::move(j));
        }
        if (tools.full_every && !tools.full && !t.compiled_fully.empty()) {
            // The sample, in bundles as large as the check's.
            std::vector<std::string> sample;
            for (size_t i = 0; i < t.files.size(); i += tools.full_every) sample.push_back(t.files[i]);
            t.sampled = sample.size();
            size_t bundles = std::min(sample.size(), std::max<size_t>(jobs, (sample.size() + t.bundle - 1) / t.bundle));
            for (size_t b = 0; b < bundles; ++b) {
                Job j{&t, {}, true};
                for (size_t i = b; i < sample.size(); i += bundles) j.files.push_back(sample[i]);
                queue.push_back(std::move(j));
            }
        }
    }
    // hipcc's bundles take the longest: start them first.
    std::stable_sort(queue.begin(), queue.end(), [](const Job& a, const Job& b) {
        return (a.target->dialect == Dialect::Hip) > (b.target->dialect == Dialect::Hip);
    });

    fs::path scratch_root = fs::temp_directory_path() / ("tack_gpu_compile_check." + std::to_string(::getpid()));
    fs::create_directories(scratch_root);
    std::atomic<size_t> next{0};
    std::mutex report;
    auto started = std::chrono::steady_clock::now();
    auto worker = [&](unsigned id) {
        fs::path scratch = scratch_root / std::to_string(id);
        fs::create_directories(scratch);
        for (size_t i; (i = next++) < queue.size();) {
            Job& j = queue[i];
            Target& t = *j.target;
            auto begin = std::chrono::steady_clock::now();
            Outcome all = compile(t, tools, j.files, scratch, j.full);
            std::vector<std::string> failed;
            if (!all.ok) {
                // Recompile alone the sources the diagnostics name, or every
                // source of the bundle when they name none.
                std::vector<std::string> suspects;
                for (auto& f : j.files)
                    if (all.log.find(f) != std::string::npos) suspects.push_back(f);
                if (suspects.empty() || j.files.size() == 1) suspects = j.files;
                for (auto& f : suspects) {
                    Outcome one = j.files.size() == 1 ? all : compile(t, tools, {f}, scratch, j.full);
                    if (!one.ok)
                        failed.push_back(f + " does not compile as " + t.folder +
                                         (j.full && !tools.full ? " (" + t.compiled_fully + ")" : std::string()) + ":\n" +
                                         first_lines(one.log, 60));
                }
                if (failed.empty())
                    failed.push_back("a bundle of " + std::to_string(j.files.size()) + " " + t.folder +
                                     " sources fails though each compiles alone (a defect of the bundling):\n" +
                                     first_lines(all.log, 60));
            }
            double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            std::lock_guard<std::mutex> hold(report);
            t.seconds += s;
            if (!j.full || tools.full) t.compiled += j.files.size();
            t.failed.insert(t.failed.end(), failed.begin(), failed.end());
        }
    };
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < jobs; ++w) workers.emplace_back(worker, w);
    for (auto& w : workers) w.join();
    std::error_code ec;
    fs::remove_all(scratch_root, ec);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    bool ok = true;
    for (auto& t : targets) {
        for (auto& f : t.failed) std::cout << "FAIL " << f << "\n\n";
        for (auto& e : t.errors) std::cout << "FAIL " << e << ": the printer failed:\n" << first_lines(read_text(e), 20) << "\n\n";
        ok = ok && t.failed.empty() && t.errors.empty();
    }
    for (auto& t : targets) {
        if (!only.empty() && std::find(only.begin(), only.end(), t.folder) == only.end()) continue;
        std::cout << t.folder << ": ";
        if (!t.missing.empty()) std::cout << t.files.size() << " sources skipped: " << t.missing;
        else {
            std::cout << t.files.size() << " sources compiled by " << t.compiled_by;
            if (t.sampled) std::cout << ", every " << tools.full_every << "th (" << t.sampled << ") also by " << t.compiled_fully;
            if (!t.failed.empty()) std::cout << ", " << t.failed.size() << " failed";
            if (t.seconds > 0) {
                char buf[32];
                std::snprintf(buf, sizeof buf, " (%.1f s of compiler time)", t.seconds);
                std::cout << buf;
            }
        }
        if (!t.errors.empty()) std::cout << "; the printer failed on " << t.errors.size() << " kernels";
        std::cout << "\n";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f s on %u workers", wall, jobs);
    std::cout << (ok ? "all sources compiled" : "some sources failed") << " in " << buf << "\n";
    return ok ? 0 : 1;
}
