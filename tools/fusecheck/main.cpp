// fusecheck CLI entry point. See command.h for how subcommands register.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>

#ifdef FC_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

#include "command.h"
#include "diag/render.h"
#include "support/atomic_file.h"
#include "support/internal_error.h"
#include "support/keep_until_exit.h"
#include "support/parallel.h"
#include "support/suggest.h"
#include "support/version.h"
#include "version.h"

namespace fc::cli {

std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

namespace {

// The long names of `app`'s options ("--format"), for suggestions.
std::vector<std::string> optionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  return names;
}

// Global options that take a value (their value is not a subcommand).
bool takesValue(const CLI::App& app, const std::string& arg) {
  if (arg.rfind("--", 0) != 0 || arg.find('=') != std::string::npos) return false;
  for (const CLI::Option* o : app.get_options())
    for (const std::string& l : o->get_lnames())
      if (arg == "--" + l) return o->get_type_size() != 0;
  return false;
}

// A usage error in words, with a suggestion where a word names nothing.
std::string usageMessage(CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  std::vector<std::string> subs;
  for (const CLI::App* s : app.get_subcommands({})) subs.push_back(s->get_name());
  std::vector<CLI::App*> used = app.get_subcommands();
  if (used.empty()) {
    // The first word that is neither an option nor an option's value names the subcommand.
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a.rfind('-', 0) == 0) {
        if (takesValue(app, a)) ++i;
        continue;
      }
      return "unknown subcommand '" + a + "'" + didYouMean(a, subs) +
             "; `fusecheck --help` lists the subcommands";
    }
    if (dynamic_cast<const CLI::RequiredError*>(&e))
      return "a subcommand is required: `fusecheck --help` lists them";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    CLI::App* sub = used.empty() ? nullptr : used.front();
    std::vector<std::string> names = optionNames(app);
    std::string where = "fusecheck";
    if (sub) {
      std::vector<std::string> own = optionNames(*sub);
      names.insert(names.begin(), own.begin(), own.end());
      where += " " + sub->get_name();
    }
    std::vector<std::string> extras = app.remaining(true);
    std::string msg;
    for (const std::string& x : extras) {
      if (x.rfind('-', 0) != 0 || x == "-") continue;
      std::string name = x.substr(0, x.find('='));
      msg += std::string(msg.empty() ? "" : "; ") + "unknown option " + name + " for `" + where + "`" +
             didYouMean(name, names);
    }
    if (!msg.empty()) return msg + "; `" + where + " --help` lists the options";
    std::string list;
    for (const std::string& x : extras) list += (list.empty() ? "" : " ") + x;
    return "unexpected argument" + std::string(extras.size() == 1 ? " " : "s ") + list + " for `" + where +
           "`; `" + where + " --help` says what it takes";
  }
  return e.what();
}

int usageError(CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
  const bool color = colorFor(std::cerr);
  std::cerr << "fusecheck: " << (color ? "\033[1;31merror:\033[0m " : "error: ") << usageMessage(app, e, args)
            << "\n";
  return driver::kExitBadInput;
}

}  // namespace
}  // namespace fc::cli

int main(int argc, char** argv) {
#ifdef FC_HAVE_MIMALLOC
  // 2 MiB pages for the heap (transparent huge pages where the kernel allows):
  // a million-expr IR then costs ~500x fewer page faults and far fewer TLB
  // misses. The environment (MIMALLOC_LARGE_OS_PAGES=0) still decides.
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_enable(mi_option_large_os_pages);
#endif
  fc::setKeepUntilExit(true);
  fc::setBuildVersion(fc::cli::kVersion);  // the process ends after one command: skip freeing its IR
  CLI::App app{"fusecheck: replay, diagnose and repair nvFuser-style fusions"};
  app.require_subcommand(1);
  // Global options may also follow the subcommand (`check --threads 4 F`).
  app.fallthrough();
  app.set_version_flag("--version", std::string("fusecheck ") + fc::cli::kVersion);
  app.add_option_function<unsigned>(
         "--threads", [](unsigned n) { fc::setDefaultThreads(n); },
         "Threads for reading, verifying and analyzing large repros (0: every core, the default; 1: one); "
         "results never depend on it")
      ->check(CLI::Range(0u, fc::kMaxThreads));
  fc::cli::choicesMapped(
      app.add_option_function<int>(
          "--color", [](int m) { fc::setColorMode(static_cast<fc::ColorMode>(m)); },
          "Colour diagnostics: auto (on a terminal, unless NO_COLOR is set), always or never"),
      {"auto", "always", "never"},
      {std::to_string(static_cast<int>(fc::ColorMode::Auto)),
       std::to_string(static_cast<int>(fc::ColorMode::Always)),
       std::to_string(static_cast<int>(fc::ColorMode::Never))},
      "WHEN")
      ->default_str("auto");
  app.add_option_function<std::string>(
      "--sarif-root", [](const std::string& r) { fc::setSarifRoot(r); },
      "The folder SARIF and GitHub annotations name files relative to (default: the current directory)");
  auto& reg = fc::cli::registry();
  std::sort(reg.begin(), reg.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  int exit_code = 0;
  for (auto& c : reg) c.setup(app, exit_code);
  std::vector<std::string> args(argv + 1, argv + argc);
  // Build-time generation from this definition (tools/CMakeLists.txt): completion scripts, man pages.
  if (args.size() == 2 && args[0] == "--generate-completion") {
    std::string script = fc::cli::completionScript(app, args[1]);
    if (script.empty()) {
      std::cerr << "fusecheck: --generate-completion takes bash or zsh\n";
      return fc::driver::kExitBadInput;
    }
    std::cout << script;
    return 0;
  }
  if (args.size() == 2 && args[0] == "--generate-man") {
    for (const auto& [name, text] : fc::cli::manPages(app)) {
      std::string why = fc::writeFileAtomic(args[1] + "/" + name, text);
      if (!why.empty()) {
        std::cerr << "fusecheck: " << why << "\n";
        return fc::driver::kExitEnvironment;
      }
    }
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return fc::cli::usageError(app, e, args);
  } catch (const fc::InternalError& e) {
    std::cerr << "fusecheck: internal error (a bug in fusecheck, please report it): " << e.what() << "\n";
    return fc::driver::kExitInternal;
  } catch (const std::bad_alloc&) {
    std::cerr << "fusecheck: out of memory\n";
    return fc::driver::kExitEnvironment;
  } catch (const std::exception& e) {
    std::cerr << "fusecheck: internal error (a bug in fusecheck, please report it): " << e.what() << "\n";
    return fc::driver::kExitInternal;
  }
  return exit_code;
}
