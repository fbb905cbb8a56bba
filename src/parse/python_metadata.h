// Parsers for installed-package metadata of Python environments: the core-metadata
// headers of *.dist-info/METADATA and *.egg-info/PKG-INFO (RFC 822 style "Name: torch"),
// PEP 503 name normalisation, and the names of dist-info folders and conda-meta files.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpuready::parse {

struct CoreMetadata {
  std::string name;              // as written: "nvidia-cudnn-cu13", "PyYAML"
  std::string version;           // "2.11.0+cu130"
  std::string metadata_version;  // "2.4"
  [[nodiscard]] bool ok() const { return !name.empty() && !version.empty(); }
};

// Reads the header block (up to the first blank line); only Name, Version and
// Metadata-Version are kept. Garbage gives an empty result, never an exception.
CoreMetadata core_metadata(std::string_view text);

// PEP 503: lowercase, every run of '-', '_' and '.' becomes one '-'. "Tensorflow_GPU" -> "tensorflow-gpu".
std::string normalize_package_name(std::string_view name);

// "torch-2.11.0.dist-info" / "tensorflow_gpu-2.4.0-py3.8.egg-info" / "foo.egg-info":
// the name and version encoded in the folder name (version empty when absent).
struct DistFolderName {
  std::string name;
  std::string version;
  std::string kind;  // "dist-info" | "egg-info"
};
std::optional<DistFolderName> dist_folder_name(std::string_view folder);

// conda-meta/<name>-<version>-<build>.json: "cudnn-8.1.0.77-h3e0f4f4_0.json".
struct CondaMetaName {
  std::string name;
  std::string version;
  std::string build;
};
std::optional<CondaMetaName> conda_meta_name(std::string_view file_name);

// The local version label of a PEP 440 version: "2.11.0+cu130" -> "cu130"; "" when none.
std::string local_version_label(std::string_view version);

}  // namespace gpuready::parse
