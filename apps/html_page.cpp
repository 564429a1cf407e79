#include "apps/html_page.h"

namespace loom {

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<tr>";
  for (const std::string& h : header) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& cell : row) out += "<td>" + html_escape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string html_page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<style>\n"
         "body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 70em; }\n"
         "table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }\n"
         "th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }\n"
         "th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }\n"
         ".warning { color: #a40; } .met { color: #070; } .missed { color: #b00; }\n"
         "svg text { font-family: system-ui, sans-serif; }\n"
         "</style>\n</head>\n<body>\n<h1>" +
         html_escape(title) + "</h1>\n" + body + "</body>\n</html>\n";
}

}  // namespace loom
