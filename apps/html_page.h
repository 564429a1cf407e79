// Self-contained HTML pages for reports: one file, inline CSS and SVG, no scripts and no
// network, so a report opens anywhere and can be mailed or archived as is.
#pragma once

#include <string>
#include <vector>

namespace loom {

std::string html_escape(const std::string& text);

// A table: header cells and rows of cells (already formatted text; escaped here).
std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

// The page around `body` (HTML), titled `title`.
std::string html_page(const std::string& title, const std::string& body);

}  // namespace loom
