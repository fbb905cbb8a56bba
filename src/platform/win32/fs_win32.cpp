// Windows implementation of Fs: CreateFileW/ReadFile with the cap, FindFirstFileExW listings,
// reparse points (symlinks, junctions, WSL symlinks) read with FSCTL_GET_REPARSE_POINT, and
// GetFinalPathNameByHandleW for canonical paths. All paths are UTF-16 underneath.
#include <algorithm>
#include <cstring>

#include "platform/win32/win32_os.h"
// After windows.h, which it needs but does not include itself.
#include <winioctl.h>

#ifndef IO_REPARSE_TAG_LX_SYMLINK
#define IO_REPARSE_TAG_LX_SYMLINK 0xA000001DL  // a symlink made by WSL on NTFS
#endif

namespace gpuready {
namespace {

// Closes a HANDLE on every path out of a function.
struct OwnedHandle {
  HANDLE h = INVALID_HANDLE_VALUE;
  explicit OwnedHandle(HANDLE raw) : h(raw) {}
  OwnedHandle(const OwnedHandle&) = delete;
  OwnedHandle& operator=(const OwnedHandle&) = delete;
  ~OwnedHandle() {
    if (valid()) ::CloseHandle(h);
  }
  [[nodiscard]] bool valid() const { return h != INVALID_HANDLE_VALUE && h != nullptr; }
};

// Opens for metadata only (no read access needed, so locked files still answer).
// FILE_FLAG_BACKUP_SEMANTICS is what lets CreateFileW open a directory at all.
HANDLE open_meta(const std::wstring& wpath, bool follow_links) {
  DWORD flags = FILE_FLAG_BACKUP_SEMANTICS;
  if (!follow_links) flags |= FILE_FLAG_OPEN_REPARSE_POINT;
  return ::CreateFileW(wpath.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                       OPEN_EXISTING, flags, nullptr);
}

bool is_link_tag(DWORD tag) {
  return tag == IO_REPARSE_TAG_SYMLINK || tag == IO_REPARSE_TAG_MOUNT_POINT || tag == IO_REPARSE_TAG_LX_SYMLINK;
}

struct LinkAttrs {
  DWORD attrs = 0;
  DWORD tag = 0;  // reparse tag when FILE_ATTRIBUTE_REPARSE_POINT is set
};

// The attributes of the path itself, not of what a link points to.
std::optional<LinkAttrs> link_attrs(const std::wstring& wpath) {
  const DWORD a = ::GetFileAttributesW(wpath.c_str());
  if (a == INVALID_FILE_ATTRIBUTES) return std::nullopt;
  LinkAttrs out{a, 0};
  if (!(a & FILE_ATTRIBUTE_REPARSE_POINT)) return out;
  OwnedHandle h(open_meta(wpath, false));
  FILE_ATTRIBUTE_TAG_INFO info{};
  if (h.valid() && ::GetFileInformationByHandleEx(h.h, FileAttributeTagInfo, &info, sizeof info))
    out.tag = info.ReparseTag;
  return out;
}

// The attributes after following links, like stat(): nullopt for a dangling link or a loop.
// Only name-surrogate reparse points (symlinks, junctions) are followed; others (app
// execution aliases such as WindowsApps\python.exe, cloud placeholders) are files in their
// own right and opening "through" them fails, so their own attributes answer.
std::optional<DWORD> target_attrs(const std::wstring& wpath) {
  const auto l = link_attrs(wpath);
  if (!l) return std::nullopt;
  if (!(l->attrs & FILE_ATTRIBUTE_REPARSE_POINT)) return l->attrs;
  if (l->tag != 0 && !IsReparseTagNameSurrogate(l->tag)) return l->attrs;
  OwnedHandle h(open_meta(wpath, true));
  BY_HANDLE_FILE_INFORMATION info{};
  if (!h.valid() || !::GetFileInformationByHandle(h.h, &info)) return std::nullopt;
  return info.dwFileAttributes;
}

std::string child_path(const std::string& dir, const std::string& name) {
  if (!dir.empty() && (dir.back() == '\\' || dir.back() == '/')) return dir + name;
  return dir + "\\" + name;
}

// REPARSE_DATA_BUFFER is a driver-kit type; these are its documented offsets.
constexpr size_t kReparseHeader = 8;        // ULONG tag, USHORT data length, USHORT reserved
constexpr size_t kSymlinkPathBuffer = 20;   // header + 4 USHORT name fields + ULONG flags
constexpr size_t kMountPathBuffer = 16;     // header + 4 USHORT name fields
constexpr ULONG kSymlinkFlagRelative = 1;   // SYMLINK_FLAG_RELATIVE

template <typename T>
T read_at(const std::vector<char>& buf, size_t off) {
  T v{};
  if (off + sizeof v <= buf.size()) std::memcpy(&v, buf.data() + off, sizeof v);
  return v;
}

std::optional<std::wstring> name_at(const std::vector<char>& buf, size_t path_buffer, USHORT off, USHORT len) {
  const size_t begin = path_buffer + off;
  if (len == 0 || begin + len > buf.size() || len % sizeof(wchar_t) != 0) return std::nullopt;
  std::wstring s(len / sizeof(wchar_t), L'\0');
  std::memcpy(s.data(), buf.data() + begin, len);
  return s;
}

// "\??\C:\x" is the NT spelling of "C:\x", "\??\UNC\srv\share" of "\\srv\share"; anything
// else under \??\ (a volume mount point's "\??\Volume{guid}\") is only reachable as \\?\.
std::wstring from_nt_path(std::wstring s) {
  if (s.rfind(L"\\??\\UNC\\", 0) == 0) return L"\\\\" + s.substr(8);
  if (s.rfind(L"\\??\\", 0) != 0) return s;
  const bool drive = s.size() >= 6 && s[5] == L':' && ((s[4] >= L'A' && s[4] <= L'Z') || (s[4] >= L'a' && s[4] <= L'z'));
  return drive ? s.substr(4) : L"\\\\?\\" + s.substr(4);
}

}  // namespace

namespace win32 {

std::optional<std::string> reparse_target(std::string_view data) {
  std::vector<char> buf(data.begin(), data.end());
  const auto tag = read_at<ULONG>(buf, 0);
  // Never read past the data length the header declares (nor past what we were given).
  buf.resize(std::min(buf.size(), kReparseHeader + read_at<USHORT>(buf, 4)));
  if (tag == IO_REPARSE_TAG_LX_SYMLINK) {
    // ULONG version, then the target as UTF-8 bytes up to the end of the data.
    const size_t begin = kReparseHeader + sizeof(ULONG);
    if (buf.size() <= begin) return std::nullopt;
    return std::string(buf.data() + begin, buf.size() - begin);
  }
  if (tag != IO_REPARSE_TAG_SYMLINK && tag != IO_REPARSE_TAG_MOUNT_POINT) return std::nullopt;
  const size_t path_buffer = tag == IO_REPARSE_TAG_SYMLINK ? kSymlinkPathBuffer : kMountPathBuffer;
  const auto sub_off = read_at<USHORT>(buf, kReparseHeader);
  const auto sub_len = read_at<USHORT>(buf, kReparseHeader + 2);
  const auto print_off = read_at<USHORT>(buf, kReparseHeader + 4);
  const auto print_len = read_at<USHORT>(buf, kReparseHeader + 6);
  // The print name is what `mklink` was given (relative stays relative, like readlink);
  // the substitute name is the NT path, used when no print name was stored.
  if (auto print = name_at(buf, path_buffer, print_off, print_len)) return win32::to_utf8(*print);
  auto sub = name_at(buf, path_buffer, sub_off, sub_len);
  if (!sub) return std::nullopt;
  const bool relative = tag == IO_REPARSE_TAG_SYMLINK && (read_at<ULONG>(buf, kReparseHeader + 8) & kSymlinkFlagRelative);
  return win32::to_utf8(relative ? *sub : from_nt_path(*sub));
}

}  // namespace win32

namespace {
// Why CreateFileW could not open a file for reading. A folder fails with "Access is denied"
// (it opens only with FILE_FLAG_BACKUP_SEMANTICS): say what POSIX says for one instead.
std::string open_error(const std::string& path, const std::wstring& wpath) {
  const DWORD code = ::GetLastError();
  const DWORD a = ::GetFileAttributesW(wpath.c_str());
  if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)) return path + ": not a regular file (a folder)";
  return win32::error_with(path, code);
}
}  // namespace

std::optional<std::string> Win32Fs::read_file(const std::string& path, size_t max_bytes, std::string* error) const {
  const std::wstring wpath = win32::os_path(path);
  // Share everything: a log or version file another process holds open must still be readable.
  OwnedHandle h(::CreateFileW(wpath.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                              nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN, nullptr));
  if (!h.valid()) {
    if (error) *error = open_error(path, wpath);
    return std::nullopt;
  }
  // A console, serial port or pipe planted where a version file should be could block the
  // read forever (as a FIFO would on POSIX): only disk files are read.
  if (::GetFileType(h.h) != FILE_TYPE_DISK) {
    if (error) *error = path + ": not a regular file";
    return std::nullopt;
  }
  std::string data;
  LARGE_INTEGER size{};
  if (::GetFileSizeEx(h.h, &size) && size.QuadPart > 0)
    data.reserve(static_cast<size_t>(std::min<unsigned long long>(static_cast<unsigned long long>(size.QuadPart), max_bytes)));
  char buf[65536];
  while (data.size() < max_bytes) {
    const DWORD want = static_cast<DWORD>(std::min(sizeof buf, max_bytes - data.size()));
    DWORD got = 0;
    if (!::ReadFile(h.h, buf, want, &got, nullptr)) {
      const DWORD code = ::GetLastError();
      if (code == ERROR_HANDLE_EOF) break;
      if (error) *error = win32::error_with(path, code);
      return std::nullopt;
    }
    if (got == 0) break;
    data.append(buf, got);
  }
  return data;
}

std::optional<std::string> Win32Fs::read_file_at(const std::string& path, std::uint64_t offset, size_t max_bytes,
                                                 std::string* error) const {
  const std::wstring wpath = win32::os_path(path);
  OwnedHandle h(::CreateFileW(wpath.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                              nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_RANDOM_ACCESS, nullptr));
  if (!h.valid()) {
    if (error) *error = open_error(path, wpath);
    return std::nullopt;
  }
  LARGE_INTEGER size{};
  if (::GetFileType(h.h) != FILE_TYPE_DISK || !::GetFileSizeEx(h.h, &size) || size.QuadPart < 0) {
    if (error) *error = path + ": not a regular file";
    return std::nullopt;
  }
  const auto total = static_cast<std::uint64_t>(size.QuadPart);
  std::string data;
  if (offset >= total) return data;
  // Never allocate more than the file holds, whatever max_bytes says.
  data.resize(static_cast<size_t>(std::min<std::uint64_t>(max_bytes, total - offset)));
  size_t done = 0;
  while (done < data.size()) {
    // On a handle opened without FILE_FLAG_OVERLAPPED, the OVERLAPPED offset makes ReadFile a
    // synchronous positioned read.
    const std::uint64_t at = offset + done;
    OVERLAPPED ov{};
    ov.Offset = static_cast<DWORD>(at & 0xffffffffu);
    ov.OffsetHigh = static_cast<DWORD>(at >> 32);
    const DWORD want = static_cast<DWORD>(std::min<size_t>(data.size() - done, 1u << 20));
    DWORD got = 0;
    if (!::ReadFile(h.h, data.data() + done, want, &got, &ov)) {
      const DWORD code = ::GetLastError();
      if (code == ERROR_HANDLE_EOF) break;
      if (error) *error = win32::error_with(path, code);
      return std::nullopt;
    }
    if (got == 0) break;  // the file shrank
    done += got;
  }
  data.resize(done);
  return data;
}

std::optional<std::vector<DirEntry>> Win32Fs::list_dir(const std::string& path, std::string* error) const {
  const std::wstring pattern = win32::os_path(child_path(path, "*"));
  WIN32_FIND_DATAW fd{};
  // FindExInfoBasic skips the 8.3 short names; LARGE_FETCH asks for bigger batches.
  HANDLE find = ::FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &fd, FindExSearchNameMatch, nullptr,
                                   FIND_FIRST_EX_LARGE_FETCH);
  if (find == INVALID_HANDLE_VALUE) {
    const DWORD code = ::GetLastError();
    // A drive root has no "." or "..": when empty it matches nothing, which is not an error.
    if (code == ERROR_FILE_NOT_FOUND && is_dir(path)) return std::vector<DirEntry>{};
    if (error) *error = win32::error_with(path, code);
    return std::nullopt;
  }
  std::vector<DirEntry> out;
  do {
    const std::wstring wname(fd.cFileName);
    if (wname == L"." || wname == L"..") continue;
    DirEntry entry;
    entry.name = win32::to_utf8(wname);
    const bool reparse = (fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
    // For reparse points FindFirstFile puts the reparse tag in dwReserved0.
    const DWORD tag = reparse ? fd.dwReserved0 : 0;
    entry.is_symlink = reparse && is_link_tag(tag);
    if (reparse && IsReparseTagNameSurrogate(tag)) {
      // The listing describes the link; is_dir must describe what it points to.
      const auto a = target_attrs(win32::os_path(child_path(path, entry.name)));
      entry.is_dir = a && (*a & FILE_ATTRIBUTE_DIRECTORY);
    } else {
      entry.is_dir = (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    }
    out.push_back(std::move(entry));
  } while (::FindNextFileW(find, &fd));
  const DWORD code = ::GetLastError();
  ::FindClose(find);
  if (code != ERROR_NO_MORE_FILES) {
    if (error) *error = win32::error_with(path, code);
    return std::nullopt;
  }
  return out;
}

bool Win32Fs::exists(const std::string& path) const { return target_attrs(win32::os_path(path)).has_value(); }

bool Win32Fs::is_dir(const std::string& path) const {
  const auto a = target_attrs(win32::os_path(path));
  return a && (*a & FILE_ATTRIBUTE_DIRECTORY);
}

std::optional<std::string> Win32Fs::read_link(const std::string& path) const {
  OwnedHandle h(open_meta(win32::os_path(path), false));
  if (!h.valid()) return std::nullopt;
  std::vector<char> buf(MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
  DWORD got = 0;
  if (!::DeviceIoControl(h.h, FSCTL_GET_REPARSE_POINT, nullptr, 0, buf.data(), static_cast<DWORD>(buf.size()), &got,
                         nullptr))
    return std::nullopt;  // not a reparse point at all: not a link
  buf.resize(got);
  return win32::reparse_target(std::string_view(buf.data(), buf.size()));
}

std::optional<std::string> Win32Fs::canonical(const std::string& path) const {
  const std::wstring wpath = win32::os_path(path);
  // Opening through the links resolves them all; a loop fails with ERROR_CANT_RESOLVE_FILENAME.
  HANDLE raw = open_meta(wpath, true);
  if (raw == INVALID_HANDLE_VALUE) {
    // An app execution alias cannot be opened through; it is its own final path.
    const auto l = link_attrs(wpath);
    if (!l || !(l->attrs & FILE_ATTRIBUTE_REPARSE_POINT) || l->tag == 0 || IsReparseTagNameSurrogate(l->tag))
      return std::nullopt;
    raw = open_meta(wpath, false);
  }
  OwnedHandle h(raw);
  if (!h.valid()) return std::nullopt;
  std::wstring out(MAX_PATH, L'\0');
  for (int attempt = 0; attempt < 3; ++attempt) {
    const DWORD n = ::GetFinalPathNameByHandleW(h.h, out.data(), static_cast<DWORD>(out.size()),
                                                FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (n == 0) return std::nullopt;  // e.g. a volume without a drive letter
    if (n < out.size()) {
      out.resize(n);
      return win32::strip_long_prefix(out);
    }
    out.assign(n + 1, L'\0');  // n is the size needed
  }
  return std::nullopt;
}

std::optional<FileStat> Win32Fs::stat(const std::string& path, std::string* error) const {
  OwnedHandle h(open_meta(win32::os_path(path), true));
  if (!h.valid()) {
    if (error) *error = win32::error_with(path, ::GetLastError());
    return std::nullopt;
  }
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(h.h, &info)) {
    // A device or pipe (\\.\pipe\x, CON) has no file information: it is not a file.
    FileStat f;
    f.type = FileStat::Type::other;
    return f;
  }
  FileStat f;
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) f.type = FileStat::Type::directory;
  else f.type = ::GetFileType(h.h) == FILE_TYPE_DISK ? FileStat::Type::regular : FileStat::Type::other;
  f.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  return f;  // no POSIX mode: Windows keeps who may write in an ACL
}

}  // namespace gpuready
