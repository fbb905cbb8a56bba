// POSIX implementation of Fs: plain open/read, opendir, readlink, realpath.
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "platform/posix/posix_os.h"

namespace gpuready {

std::optional<std::string> PosixFs::read_file(const std::string& path, size_t max_bytes, std::string* error) const {
  // O_NONBLOCK: a FIFO planted where a version file should be must not block us.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (error) *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    ::close(fd);
    if (error) *error = path + ": not a regular file";
    return std::nullopt;
  }
  std::string data;
  char buf[65536];
  while (data.size() < max_bytes) {
    const size_t want = std::min(sizeof buf, max_bytes - data.size());
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      if (error) *error = path + ": " + std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

std::optional<std::string> PosixFs::read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                                 std::string* error) const {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (error) *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  // Only regular files: they have a size, and reading at an offset means something for them.
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    if (error) *error = path + ": not a regular file";
    return std::nullopt;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size < 0 ? 0 : st.st_size);
  std::string data;
  if (offset >= size) {
    ::close(fd);
    return data;
  }
  // Never allocate more than the file holds, whatever max_bytes says.
  data.resize(static_cast<size_t>(std::min<std::uint64_t>(max_bytes, size - offset)));
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::pread(fd, data.data() + done, data.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      if (error) *error = path + ": " + std::strerror(errno);
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;  // the file shrank
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(done);
  return data;
}

std::optional<std::vector<DirEntry>> PosixFs::list_dir(const std::string& path, std::string* error) const {
  DIR* d = ::opendir(path.c_str());
  if (!d) {
    if (error) *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::vector<DirEntry> out;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    DirEntry entry;
    entry.name = e->d_name;
    // d_type answers for plain files and folders without a syscall (PATH folders such as
    // /usr/bin hold thousands of entries); links and file systems that leave it unknown get stat'ed.
    const std::string full = path + "/" + entry.name;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN) {
      struct stat lst {};
      if (::lstat(full.c_str(), &lst) == 0) type = S_ISLNK(lst.st_mode) ? DT_LNK : S_ISDIR(lst.st_mode) ? DT_DIR : DT_REG;
    }
    entry.is_symlink = type == DT_LNK;
    if (type == DT_LNK) {
      struct stat st {};
      entry.is_dir = ::stat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    } else {
      entry.is_dir = type == DT_DIR;
    }
    out.push_back(std::move(entry));
  }
  ::closedir(d);
  return out;
}

bool PosixFs::exists(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool PosixFs::is_dir(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::optional<std::string> PosixFs::read_link(const std::string& path) const {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<std::string> PosixFs::canonical(const std::string& path) const {
  char* r = ::realpath(path.c_str(), nullptr);
  if (!r) return std::nullopt;
  std::string out(r);
  std::free(r);
  return out;
}

std::optional<FileStat> PosixFs::stat(const std::string& path, std::string* error) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (error) *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  FileStat f;
  f.type = S_ISREG(st.st_mode) ? FileStat::Type::regular : S_ISDIR(st.st_mode) ? FileStat::Type::directory
                                                                               : FileStat::Type::other;
  f.size = st.st_size > 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  f.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
  f.owner = static_cast<std::uint32_t>(st.st_uid);
  return f;
}

}  // namespace gpuready
