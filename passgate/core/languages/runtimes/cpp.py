"""The C++ serialiser (C++11 and later; std::optional from C++17): one `__pg::report(site, value)`
writing a JSON line to the report descriptor, overloads for the standard library's value types."""

SOURCE = r'''
#include <string>
#include <vector>
#include <map>
#include <tuple>
#include <utility>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <unistd.h>
#if __cplusplus >= 201703L
#include <optional>
#endif
namespace __pg {
inline void enc(std::string& o, bool v);
inline void enc(std::string& o, char v);
inline void enc(std::string& o, const std::string& s);
inline void enc(std::string& o, const char* s);
template <class T> typename std::enable_if<std::is_integral<T>::value>::type enc(std::string& o, T v);
template <class T> typename std::enable_if<std::is_floating_point<T>::value>::type enc(std::string& o, T v);
template <class T, class A> void enc(std::string& o, const std::vector<T, A>& v);
template <class K, class V, class C, class A> void enc(std::string& o, const std::map<K, V, C, A>& m);
template <class A, class B> void enc(std::string& o, const std::pair<A, B>& p);
template <class... T> void enc(std::string& o, const std::tuple<T...>& t);
#if __cplusplus >= 201703L
template <class T> void enc(std::string& o, const std::optional<T>& v);
inline void enc(std::string& o, std::nullopt_t);
#endif

inline void str(std::string& o, const char* s, size_t n) {
  o += '"';
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') { o += '\\'; o += (char)c; }
    else if (c < 0x20 || c == 0x7f) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += (char)c;
  }
  o += '"';
}
inline void enc(std::string& o, bool v) { o += v ? "true" : "false"; }
inline void enc(std::string& o, char v) { o += "{\"c\":"; str(o, &v, 1); o += "}"; }
inline void enc(std::string& o, const std::string& s) { str(o, s.data(), s.size()); }
inline void enc(std::string& o, const char* s) { if (s) str(o, s, std::char_traits<char>::length(s)); else o += "null"; }
template <class T> typename std::enable_if<std::is_integral<T>::value>::type enc(std::string& o, T v) {
  o += std::to_string(v);
}
template <class T> typename std::enable_if<std::is_floating_point<T>::value>::type enc(std::string& o, T v) {
  double d = (double)v;
  if (std::isnan(d)) { o += "{\"f\":\"nan\"}"; return; }
  if (std::isinf(d)) { o += d > 0 ? "{\"f\":\"inf\"}" : "{\"f\":\"-inf\"}"; return; }
  if (d == 0 && std::signbit(d)) { o += "{\"f\":\"-0\"}"; return; }
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", d);
  o += "{\"f\":"; o += b; o += "}";
}
template <class T, class A> void enc(std::string& o, const std::vector<T, A>& v) {
  o += '[';
  for (size_t i = 0; i < v.size(); i++) { if (i) o += ','; enc(o, (T)v[i]); }
  o += ']';
}
template <class K, class V, class C, class A> void enc(std::string& o, const std::map<K, V, C, A>& m) {
  o += "{\"m\":[";
  bool first = true;
  for (typename std::map<K, V, C, A>::const_iterator it = m.begin(); it != m.end(); ++it) {
    if (!first) o += ',';
    first = false;
    o += '['; enc(o, it->first); o += ','; enc(o, it->second); o += ']';
  }
  o += "]}";
}
template <class A, class B> void enc(std::string& o, const std::pair<A, B>& p) {
  o += "{\"t\":["; enc(o, p.first); o += ','; enc(o, p.second); o += "]}";
}
template <size_t I, class... T> typename std::enable_if<I == sizeof...(T)>::type items(std::string&, const std::tuple<T...>&) {}
template <size_t I, class... T> typename std::enable_if<(I < sizeof...(T))>::type items(std::string& o, const std::tuple<T...>& t) {
  if (I) o += ',';
  enc(o, std::get<I>(t));
  items<I + 1, T...>(o, t);
}
template <class... T> void enc(std::string& o, const std::tuple<T...>& t) { o += "{\"t\":["; items<0, T...>(o, t); o += "]}"; }
#if __cplusplus >= 201703L
template <class T> void enc(std::string& o, const std::optional<T>& v) {
  if (v.has_value()) { o += "{\"opt\":["; enc(o, *v); o += "]}"; } else o += "{\"opt\":[]}";
}
inline void enc(std::string& o, std::nullopt_t) { o += "{\"opt\":[]}"; }
#endif
inline void put(const std::string& line) {
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(FD, line.data() + off, line.size() - off);
    if (n <= 0) std::_Exit(125);
    off += (size_t)n;
  }
}
template <class T> void report(int site, const T& value) {
  std::string o = "{\"s\":" + std::to_string(site) + ",\"v\":";
  enc(o, value);
  o += "}\n";
  put(o);
}
inline void end(int n) { put("{\"end\":" + std::to_string(n) + "}\n"); }
}  // namespace __pg
'''
