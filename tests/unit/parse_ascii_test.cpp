// The ASCII helpers every parser shares (parse/ascii.h): trimming, case folding, digit tests.
// They must not depend on the C locale and must leave non-ASCII (UTF-8) bytes alone.
#include <gtest/gtest.h>

#include <string>

#include "parse/ascii.h"

using namespace gpuready::parse;

TEST(Ascii, TrimRemovesEveryAsciiWhitespaceAtBothEndsOnly) {
  EXPECT_EQ(trim("  \t12.4\r\n"), "12.4");
  EXPECT_EQ(trim("\v\fName: x \f"), "Name: x");
  EXPECT_EQ(trim("a b"), "a b");
  EXPECT_EQ(trim(" \t\r\n"), "");
  EXPECT_EQ(trim(""), "");
  // A non-breaking space (UTF-8 C2 A0) is not ASCII whitespace.
  EXPECT_EQ(trim("\xC2\xA0x"), "\xC2\xA0x");
}

TEST(Ascii, CaseFolding) {
  EXPECT_TRUE(iequals("Metadata-Version", "METADATA-version"));
  EXPECT_TRUE(iequals(".DLL", ".dll"));
  EXPECT_FALSE(iequals("Name", "Names"));
  EXPECT_FALSE(iequals("cudart", "cudnn_"));
  EXPECT_EQ(ascii_lower("CUDART64_110.DLL"), "cudart64_110.dll");
  // Only ASCII letters fold: "É" (C3 89) stays as it is.
  EXPECT_EQ(ascii_lower("\xC3\x89X"), "\xC3\x89x");
  // Every byte value, at every offset of the eight-byte steps and of the tail, folds as to_lower does.
  for (int b = 0; b < 256; ++b)
    for (size_t at = 0; at < 19; ++at) {
      std::string in(19, 'Q');
      in[at] = static_cast<char>(b);
      std::string want = in;
      for (char& c : want) c = gpuready::parse::to_lower(c);
      ASSERT_EQ(ascii_lower(in), want) << "byte " << b << " at " << at;
    }
  EXPECT_FALSE(iequals("\xC3\x89", "\xC3\xA9"));
}

TEST(Ascii, Digits) {
  EXPECT_TRUE(is_digit('0'));
  EXPECT_TRUE(is_digit('9'));
  EXPECT_FALSE(is_digit('a'));
  EXPECT_FALSE(is_digit('\xD9'));  // a byte that is a digit in no encoding we read
  EXPECT_TRUE(all_digits("110"));
  EXPECT_FALSE(all_digits(""));
  EXPECT_FALSE(all_digits("11.0"));
  EXPECT_FALSE(all_digits("12 "));
  EXPECT_TRUE(is_space('\v'));
  EXPECT_FALSE(is_space('\0'));
}
