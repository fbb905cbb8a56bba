// Install steps for a planned stack, per OS: Python environment, driver, CUDA toolkit and
// cuDNN when the framework needs them installed (with where each cuDNN file goes), the
// environment lines, the pip command with its pins, and the checks. Windows lines are for
// cmd.exe (what the Python installer's and Anaconda's prompts open).
#include <fmt/format.h>

#include "plan/plan.h"

namespace gpuready::plan {
namespace {

using knowledge::Compat;

struct Paths {
  std::string venv, venv_python, activate;
};

Paths venv_paths(const std::string& os, const std::string& name) {
  if (os == "windows")
    return {"%USERPROFILE%\\venvs\\" + name, "%USERPROFILE%\\venvs\\" + name + "\\Scripts\\python.exe",
            "%USERPROFILE%\\venvs\\" + name + "\\Scripts\\activate"};
  return {"~/venvs/" + name, "~/venvs/" + name + "/bin/python", "source ~/venvs/" + name + "/bin/activate"};
}

std::string windows_cuda_root(const Version& cuda) {
  return "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v" + cuda.major_minor().str();
}

// The pip requirement for numpy from a constraint as tables write it ("~=1.19.2", "<2").
std::string numpy_requirement(const std::string& c) { return "\"numpy" + c + "\""; }

// "0.26.0" -> "==0.26.0"; "0.25" (minor only in the tables) -> "==0.25.*".
std::string pin(const std::string& v) {
  auto p = Version::parse(v);
  if (p && p->parts.size() == 2) return "==" + v + ".*";
  return "==" + v;
}

Step python_step(const std::string& os, const Stack& s, const Paths& p, bool python_given) {
  Step st;
  st.kind = StepKind::python;
  st.title = fmt::format("Python {} in a virtual environment{}", s.python,
                         python_given ? "" : fmt::format(" (the build supports {})", s.python_range));
  if (os == "windows") {
    st.commands = {fmt::format("# Python {} (64-bit) from https://www.python.org/downloads/ if `py -{}` is missing",
                               s.python, s.python),
                   fmt::format("py -{} -m venv {}", s.python, p.venv), p.activate,
                   "python -m pip install --upgrade pip"};
  } else {
    st.commands = {fmt::format("# Python {}: from your distribution, conda or pyenv if `python{}` is missing", s.python,
                               s.python),
                   fmt::format("python{} -m venv {}", s.python, p.venv), p.activate,
                   "python -m pip install --upgrade pip"};
  }
  return st;
}

Step driver_step(const std::string& os, const Stack& s, const PlanInputs& in) {
  Step st;
  st.kind = StepKind::driver;
  const auto need = Version::parse(s.min_driver);
  if (in.driver && need && *in.driver >= *need) {
    st.title = fmt::format("Driver {}: new enough (this stack needs >= {})", in.driver->str(), s.min_driver);
    st.commands = {"nvidia-smi"};
    return st;
  }
  const std::string yours = in.driver ? fmt::format(" (yours is {})", in.driver->str()) : "";
  const std::string floor = s.min_driver.empty() ? std::string("for your GPU") : ">= " + s.min_driver;
  st.title = fmt::format("NVIDIA driver {}{}", floor, yours);
  if (os == "windows") {
    st.commands = {fmt::format("# a Game Ready or Studio driver {} from https://www.nvidia.com/Download/index.aspx",
                               floor),
                   "nvidia-smi   # 'Driver Version' in the top line"};
  } else if (os == "wsl2") {
    st.commands = {
        fmt::format("# on Windows, not inside WSL2: a driver {} from https://www.nvidia.com/Download/index.aspx "
                    "(the Windows driver serves WSL2)",
                    floor),
        "# never install a Linux NVIDIA driver inside WSL2: it would shadow /usr/lib/wsl/lib/libcuda.so",
        "nvidia-smi   # inside WSL2, after `wsl --shutdown` and a new WSL2 terminal"};
  } else {
    st.commands = {
        fmt::format("# a driver {}: your distribution's packages (Ubuntu: sudo ubuntu-drivers install) or "
                    "https://www.nvidia.com/Download/index.aspx",
                    floor),
        "sudo reboot", "nvidia-smi   # 'Driver Version' in the top line"};
  }
  return st;
}

std::vector<Step> toolkit_steps(const Compat& k, const std::string& os, const Stack& s) {
  std::vector<Step> out;
  auto cuda = Version::parse(s.cuda);
  if (!cuda) return out;
  const auto* row = k.cuda_row(*cuda);
  const std::string release = row ? row->first_release.str() : cuda->str();
  const std::string v = cuda->major_minor().str();
  const std::string dash = fmt::format("{}-{}", cuda->major(), cuda->minor());
  const bool win = os == "windows";
  const std::string root = win ? windows_cuda_root(*cuda) : "/usr/local/cuda-" + v;

  Step tk;
  tk.kind = StepKind::toolkit;
  tk.title = fmt::format("CUDA Toolkit {} (the framework needs it installed)", release);
  if (win) {
    tk.commands = {fmt::format("# https://developer.nvidia.com/cuda-toolkit-archive -> CUDA Toolkit {} -> Windows -> "
                               "exe (local); in Custom install, untick the driver if yours is newer",
                               release),
                   fmt::format("# it installs to {} and adds its bin folder to PATH", root),
                   fmt::format("\"{}\\bin\\nvcc\" --version", root)};
  } else if (os == "wsl2") {
    tk.commands = {"wget https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/cuda-keyring_1.1-1_all.deb",
                   "sudo dpkg -i cuda-keyring_1.1-1_all.deb", "sudo apt-get update",
                   fmt::format("sudo apt-get install -y cuda-toolkit-{}   # the toolkit only: no driver inside WSL2", dash),
                   fmt::format("# or the runfile: https://developer.nvidia.com/cuda-toolkit-archive -> CUDA Toolkit {} "
                               "-> Linux -> x86_64 -> WSL-Ubuntu",
                               release),
                   fmt::format("{}/bin/nvcc --version", root)};
  } else {
    tk.commands = {fmt::format("# https://developer.nvidia.com/cuda-toolkit-archive -> CUDA Toolkit {} -> Linux -> "
                               "runfile (local)",
                               release),
                   fmt::format("sudo sh cuda_{}_*_linux.run --silent --toolkit   # --toolkit keeps your driver", release),
                   fmt::format("{}/bin/nvcc --version", root)};
  }
  out.push_back(std::move(tk));

  if (auto cudnn = Version::parse(s.cudnn)) {
    Step dn;
    dn.kind = StepKind::cudnn;
    const long major = cuda->major();
    dn.title = fmt::format("cuDNN {} for CUDA {}.x: copy its files into CUDA {}'s folders", cudnn->major_minor().str(),
                           major, v);
    const bool old_layout = *cudnn < Version::of({8, 3});  // before 8.3 the archives unpack to `cuda/`
    dn.commands.push_back(fmt::format(
        "# download cuDNN v{}.x for CUDA {}.x from https://developer.nvidia.com/rdp/cudnn-archive (free NVIDIA "
        "developer account)",
        cudnn->major_minor().str(), major));
    if (win) {
      const std::string src = old_layout ? "cuda" : "<cuDNN folder>";
      if (!old_layout) dn.commands.push_back("# <cuDNN folder>: the folder the zip unpacks to (cudnn-windows-x86_64-...-archive)");
      dn.commands.push_back(fmt::format("copy \"{}\\bin\\cudnn*.dll\" \"{}\\bin\"", src, root));
      dn.commands.push_back(fmt::format("copy \"{}\\include\\cudnn*.h\" \"{}\\include\"", src, root));
      dn.commands.push_back(fmt::format("copy \"{}\\lib\\x64\\cudnn*.lib\" \"{}\\lib\\x64\"", src, root));
      if (!old_layout && cudnn->major() == 8)
        dn.commands.push_back(
            "# cuDNN 8.3-8.9 on Windows also needs zlibwapi.dll in a folder on PATH (NVIDIA's cuDNN install guide)");
    } else {
      const std::string src =
          old_layout ? "cuda"
                     : fmt::format("cudnn-linux-x86_64-{}.*_cuda{}-archive", cudnn->major_minor().str(), major);
      const std::string lib = old_layout ? "lib64" : "lib";
      dn.commands.push_back("tar -xf cudnn-*.t*z   # the archive you downloaded");
      dn.commands.push_back(fmt::format("sudo cp {}/include/cudnn*.h {}/include/", src, root));
      dn.commands.push_back(fmt::format("sudo cp -P {}/{}/libcudnn* {}/lib64/", src, lib, root));
      dn.commands.push_back(fmt::format("sudo chmod a+r {0}/include/cudnn*.h {0}/lib64/libcudnn*", root));
    }
    out.push_back(std::move(dn));
  }

  Step env;
  env.kind = StepKind::environment;
  env.title = "Environment: let the framework find CUDA and cuDNN";
  if (win) {
    std::string dll = "cudart64_*.dll";
    if (const auto* lib = k.library("cudart", cuda->major())) {
      const std::string digits = fmt::format("{}{}", cuda->major(), cuda->minor());
      for (const auto& d : lib->windows_dlls)
        if (d.find(digits) != std::string::npos || lib->windows_dlls.size() == 1) dll = d;
    }
    env.commands = {fmt::format("where {}   # in a new terminal: must print {}\\bin\\{}", dll, root, dll),
                    fmt::format("set PATH={}\\bin;%PATH%   # for this terminal, if `where` found nothing", root)};
    auto py = Version::parse(s.python);
    if (py && *py >= Version::of({3, 8})) {
      env.commands.push_back(
          "# Python >= 3.8 no longer searches PATH for the DLLs of extension modules; if a CUDA DLL is still "
          "not found, put this before the framework import:");
      env.commands.push_back(fmt::format("import os; os.add_dll_directory(r\"{}\\bin\")", root));
    }
  } else {
    env.commands = {fmt::format("export PATH={}/bin${{PATH:+:${{PATH}}}}", root),
                    fmt::format("export LD_LIBRARY_PATH={}/lib64${{LD_LIBRARY_PATH:+:${{LD_LIBRARY_PATH}}}}", root),
                    "# add both lines to ~/.bashrc to keep them"};
  }
  out.push_back(std::move(env));
  return out;
}

Step pip_step(const std::string& os, const Stack& s) {
  Step st;
  st.kind = StepKind::install_framework;
  st.package = s.package;
  st.title = fmt::format("Install {} {}{}", s.package, s.framework_version,
                         s.bundles_cuda ? " (its wheels bring CUDA and cuDNN: no toolkit to install)" : "");
  std::string cmd = "python -m pip install ";
  if (s.framework == "tensorflow") {
    cmd += s.bundles_cuda ? fmt::format("\"{}[and-cuda]=={}\"", s.package, s.framework_version)
                          : fmt::format("\"{}=={}\"", s.package, s.framework_version);
    if (!s.numpy.empty()) cmd += " " + numpy_requirement(s.numpy);
  } else if (s.framework == "pytorch") {
    cmd += "torch==" + s.framework_version;
    if (!s.torchvision.empty()) cmd += " torchvision" + pin(s.torchvision);
    if (!s.torchaudio.empty()) cmd += " torchaudio" + pin(s.torchaudio);
    if (!s.index_url.empty()) cmd += " --index-url " + s.index_url;
  } else {
    cmd += fmt::format("\"jax[{}]=={}\"", s.variant, s.framework_version);
    if (!s.find_links.empty()) cmd += " -f " + s.find_links;
  }
  st.commands.push_back(cmd);
  if (s.framework == "jax" && os != "windows" && s.bundles_cuda)
    st.commands.push_back(
        "# JAX loads the CUDA libraries of its wheels: an LD_LIBRARY_PATH pointing at another CUDA overrides them "
        "(unset LD_LIBRARY_PATH)");
  return st;
}

Step check_step(const Stack& s, const Paths& p) {
  Step st;
  st.kind = StepKind::check;
  st.title = fmt::format("Check that {} uses the GPU", s.framework);
  if (s.framework == "tensorflow") {
    auto v = Version::parse(s.framework_version);
    st.commands.push_back(v && *v >= Version::of({2, 1})
                              ? "python -c \"import tensorflow as tf; print(tf.__version__, "
                                "tf.config.list_physical_devices('GPU'))\""
                              : "python -c \"import tensorflow as tf; print(tf.__version__, tf.test.is_gpu_available())\"");
  } else if (s.framework == "pytorch") {
    st.commands.push_back(
        "python -c \"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available() and "
        "torch.cuda.get_device_name(0))\"");
  } else {
    st.commands.push_back("python -c \"import jax; print(jax.__version__, jax.devices())\"");
  }
  st.commands.push_back(fmt::format("gpuready probe --python {}", p.venv_python));
  return st;
}

}  // namespace

const char* step_kind_name(StepKind k) {
  switch (k) {
    case StepKind::python: return "python";
    case StepKind::driver: return "driver";
    case StepKind::toolkit: return "toolkit";
    case StepKind::cudnn: return "cudnn";
    case StepKind::environment: return "environment";
    case StepKind::prerequisite: return "prerequisite";
    case StepKind::install_framework: return "install-framework";
    case StepKind::check: return "check";
  }
  return "check";
}

std::vector<Step> install_steps(const Compat& k, const PlanInputs& in, const Stack& s) {
  const std::string os = s.os.empty() ? in.os.value_or("linux") : s.os;
  const std::string name = fmt::format("{}-{}", s.package, s.framework_version);
  const Paths paths = venv_paths(os, name);
  std::vector<Step> out;
  out.push_back(python_step(os, s, paths, in.python.has_value()));
  out.push_back(driver_step(os, s, in));
  if (!s.bundles_cuda)
    for (auto& st : toolkit_steps(k, os, s)) out.push_back(std::move(st));
  if (os == "windows" && s.framework == "tensorflow")
    out.push_back({StepKind::prerequisite,
                   "Microsoft Visual C++ Redistributable (TensorFlow on Windows needs it)",
                   {},
                   {"# https://aka.ms/vs/17/release/vc_redist.x64.exe"}});
  out.push_back(pip_step(os, s));
  out.push_back(check_step(s, paths));
  return out;
}

}  // namespace gpuready::plan
