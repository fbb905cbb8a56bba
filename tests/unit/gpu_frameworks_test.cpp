// The deep framework checks against the real frameworks on a machine with a GPU (label gpu; the H200
// test machine has PyTorch and JAX in /opt/torch/.venv, no TensorFlow). Without a GPU, or without
// a framework installed, each test skips itself and says why.
#include <gtest/gtest.h>

#include "doctor/doctor.h"
#include "platform/os.h"
#include "probe/probe.h"
#include "support/test_os.h"

using namespace gpuready;

namespace {

// Every framework the probe finds on this machine, imported and run (as `gpuready probe --deep` does).
const Snapshot& deep_probe() {
  static const Snapshot s = [] {
    ProbeOptions o;
    o.deep = true;
    o.framework_timeout = std::chrono::seconds(120);
    return run_probe(real_os(), o);
  }();
  return s;
}

std::vector<const FrameworkCheck*> checks_of(const std::string& framework) {
  std::vector<const FrameworkCheck*> out;
  for (const auto& k : deep_probe().frameworks)
    if (k.framework == framework) out.push_back(&k);
  return out;
}

const LoadedLibrary* loaded(const FrameworkCheck& k, const std::string& library) {
  for (const auto& l : k.libraries)
    if (l.library == library) return &l;
  return nullptr;
}

// A framework that is installed and sees the GPU: every fact the issue asks for is there and right.
void expect_ready(const FrameworkCheck& k) {
  SCOPED_TRACE(k.framework + " in " + k.python);
  EXPECT_EQ(k.status, "ready") << k.error << "\n" << k.output;
  EXPECT_TRUE(k.version.has());
  EXPECT_TRUE(k.built_cuda.has()) << k.built_cuda.why();
  EXPECT_FALSE(k.devices.empty());
  for (const auto& d : k.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_TRUE(d.compute_capability.has());
  }
  ASSERT_EQ(k.ops.size(), 2u);
  for (const auto& op : k.ops) {
    EXPECT_TRUE(op.error.empty()) << op.name << ": " << op.error;
    ASSERT_TRUE(op.max_error.has()) << op.name;
    EXPECT_LE(op.max_error.value(), kFrameworkOpTolerance) << op.name;
  }
  // The libraries it actually loaded, from where, with their versions: the driver, cuBLAS, cuDNN.
  for (const char* lib : {"cuda", "cublas", "cudnn"}) {
    const LoadedLibrary* l = loaded(k, lib);
    ASSERT_NE(l, nullptr) << lib << " is not among the loaded libraries";
    EXPECT_EQ(l->path.front(), '/') << l->path;
    EXPECT_TRUE(l->version.has()) << lib << ": " << l->version.why();
  }
}

}  // namespace

TEST(GpuFrameworks, PytorchSeesTheGpuComputesRightAndNamesWhatItLoaded) {
  std::string why;
  if (test::nvidia_smi_gpus(&why) == 0) GTEST_SKIP() << why;
  const auto torch = checks_of("pytorch");
  if (torch.empty()) GTEST_SKIP() << "no PyTorch in the Python environments gpuready finds here";
  for (const auto* k : torch) {
    expect_ready(*k);
    EXPECT_FALSE(k->arch_list.empty());
    EXPECT_TRUE(k->runtime_cudnn.has()) << k->runtime_cudnn.why();
    // torch.backends.cudnn.version() and cudnnGetVersion() on the loaded file are the same library.
    const LoadedLibrary* cudnn = loaded(*k, "cudnn");
    if (cudnn && cudnn->version.has() && k->runtime_cudnn.has()) {
      EXPECT_EQ(cudnn->version.value(), k->runtime_cudnn.value());
    }
  }
}

TEST(GpuFrameworks, JaxSeesTheGpuComputesRightAndNamesWhatItLoaded) {
  std::string why;
  if (test::nvidia_smi_gpus(&why) == 0) GTEST_SKIP() << why;
  const auto jax = checks_of("jax");
  if (jax.empty()) GTEST_SKIP() << "no JAX in the Python environments gpuready finds here";
  for (const auto* k : jax) expect_ready(*k);
}

TEST(GpuFrameworks, TheDoctorCallsThemReady) {
  std::string why;
  if (test::nvidia_smi_gpus(&why) == 0) GTEST_SKIP() << why;
  if (deep_probe().frameworks.empty()) GTEST_SKIP() << "no framework in the Python environments gpuready finds here";
  const auto r = doctor::diagnose(deep_probe(), knowledge::Compat::embedded());
  for (const auto& f : r.findings) EXPECT_FALSE(doctor::is_deep_rule(f.code)) << f.code << ": " << f.title;
  for (const auto& v : r.frameworks)
    if (!v.check_status.empty()) {
      EXPECT_EQ(v.check_status, "ready") << v.name << " " << v.python;
    }
}
