// Date formats, the gold alignment of ISO characters to source tokens, and the date task.
#include "data/date_task.hpp"

#include "core/check.hpp"

namespace attnlab {

namespace {

const char* const kEnMonth[12] = {"January",   "February", "March",    "April",
                                  "May",       "June",     "July",     "August",
                                  "September", "October",  "November", "December"};
const char* const kGbAbbr[12] = {"Jan", "Feb", "Mar",  "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"};
const char* const kUsAbbr[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kFrMonth[12] = {"janvier",   "février", "mars",     "avril",
                                  "mai",       "juin",    "juillet",  "août",
                                  "septembre", "octobre", "novembre", "décembre"};
const char* const kFrAbbr[12] = {"janv.", "févr.", "mars",  "avr.", "mai",  "juin",
                                 "juil.", "août",  "sept.", "oct.", "nov.", "déc."};
const char* const kEnDay[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                               "Thursday", "Friday", "Saturday"};
const char* const kFrDay[7] = {"dimanche", "lundi",    "mardi", "mercredi",
                               "jeudi",    "vendredi", "samedi"};
const char* const kKoDay[7] = {"일요일", "월요일", "화요일", "수요일",
                               "목요일", "금요일", "토요일"};

// What a piece of a formatted date stands for: which target characters it aligns with.
enum Role { kOther, kYear, kMonth, kDay };
struct Piece {
  std::string text;
  Role role;
  bool sep_before;  // a space precedes it
};

std::string num(int v, int width) {
  std::string s = std::to_string(v);
  while (int(s.size()) < width) s = "0" + s;
  return s;
}

std::vector<Piece> pieces(CivilDate d, int f) {
  const int m = d.month - 1, w = weekday(d);
  const std::string Y = std::to_string(d.year), D = std::to_string(d.day);
  switch (f) {
    case 0:
      return {{kEnDay[w], kOther, false},
              {",", kOther, false},
              {D, kDay, true},
              {kEnMonth[m], kMonth, true},
              {Y, kYear, true}};
    case 1:
      return {{D, kDay, false}, {kEnMonth[m], kMonth, true}, {Y, kYear, true}};
    case 2:
      return {{D, kDay, false}, {kGbAbbr[m], kMonth, true}, {Y, kYear, true}};
    case 3:
      return {{num(d.day, 2), kDay, false},
              {"/", kOther, false},
              {num(d.month, 2), kMonth, false},
              {"/", kOther, false},
              {Y, kYear, false}};
    case 4:
      return {{kEnDay[w], kOther, false},  {",", kOther, false},
              {kEnMonth[m], kMonth, true}, {D, kDay, true},
              {",", kOther, false},        {Y, kYear, true}};
    case 5:
      return {
          {kEnMonth[m], kMonth, false}, {D, kDay, true}, {",", kOther, false}, {Y, kYear, true}};
    case 6:
      return {{kUsAbbr[m], kMonth, false}, {D, kDay, true}, {",", kOther, false}, {Y, kYear, true}};
    case 7:
      return {{kFrDay[w], kOther, false},
              {D, kDay, true},
              {kFrMonth[m], kMonth, true},
              {Y, kYear, true}};
    case 8:
      return {{D, kDay, false}, {kFrMonth[m], kMonth, true}, {Y, kYear, true}};
    case 9:
      return {{D, kDay, false}, {kFrAbbr[m], kMonth, true}, {Y, kYear, true}};
    case 10:
    case 11: {
      std::vector<Piece> p = {
          {Y, kYear, false},     {"년", kOther, false}, {std::to_string(d.month), kMonth, true},
          {"월", kOther, false}, {D, kDay, true},       {"일", kOther, false}};
      if (f == 10) p.push_back({kKoDay[w], kOther, true});
      return p;
    }
    case 12:
      return {{Y, kYear, false},    {".", kOther, false}, {std::to_string(d.month), kMonth, true},
              {".", kOther, false}, {D, kDay, true},      {".", kOther, false}};
  }
  throw Error("date format " + std::to_string(f) + " outside [0, " + std::to_string(kDateFormats) +
              ")");
}

const char* const kLocale[kDateFormats] = {"en-GB", "en-GB", "en-GB", "en-GB", "en-US",
                                           "en-US", "en-US", "fr-FR", "fr-FR", "fr-FR",
                                           "ko-KR", "ko-KR", "ko-KR"};
const char* const kStyle[kDateFormats] = {"full", "long",   "medium", "short", "full",
                                          "long", "medium", "full",   "long",  "medium",
                                          "full", "long",   "medium"};

}  // namespace

long days_from_civil(CivilDate d) {
  const int y = d.year - (d.month <= 2);
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = unsigned((153 * (d.month + (d.month > 2 ? -3 : 9)) + 2) / 5 + d.day - 1);
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + long(doe) - 719468;
}

CivilDate civil_from_days(long z) {
  z += 719468;
  const long era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = unsigned(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const int d = int(doy - (153 * mp + 2) / 5 + 1);
  const int m = int(mp < 10 ? mp + 3 : mp - 9);
  return {int(long(yoe) + era * 400) + (m <= 2), m, d};
}

int weekday(CivilDate d) {
  const long z = days_from_civil(d);
  return int(((z % 7) + 11) % 7);  // 1970-01-01 was a Thursday
}

std::string format_date(CivilDate d, int f) {
  std::string s;
  for (const auto& p : pieces(d, f)) s += (p.sep_before ? " " : "") + p.text;
  return s;
}

std::string date_format_locale(int f) {
  AL_CHECK(f >= 0 && f < kDateFormats, "date format " << f << " out of range");
  return kLocale[f];
}
std::string date_format_style(int f) {
  AL_CHECK(f >= 0 && f < kDateFormats, "date format " << f << " out of range");
  return kStyle[f];
}

std::string iso_date(CivilDate d) {
  return num(d.year, 4) + "-" + num(d.month, 2) + "-" + num(d.day, 2);
}

DateTask::DateTask() {
  for (int c = 0; c <= 9; ++c) tgt_.add(std::string(1, char('0' + c)));
  tgt_.add("-");
  // Every source token: enumerate all months and weekdays in every format.
  for (int m = 1; m <= 12; ++m)
    for (int f = 0; f < kDateFormats; ++f)
      for (int dd = 1; dd <= 7; ++dd)
        for (const auto& t : split_tokens(format_date({2021, m, dd}, f))) src_.add(t);
  max_src_ = 14;
  max_tgt_ = 10;
}

SeqExample DateTask::example(CivilDate d, int f) const {
  SeqExample ex;
  ex.src_text = format_date(d, f);
  ex.tgt_text = iso_date(d);
  // Source tokens with the role of their piece and their digit index within it.
  int year_at[4] = {-1, -1, -1, -1}, month_at[2] = {-1, -1}, day_at[2] = {-1, -1};
  for (const auto& p : pieces(d, f)) {
    const auto toks = split_tokens(p.text);
    for (size_t k = 0; k < toks.size(); ++k) {
      const int pos = int(ex.src.size());
      ex.src.push_back(src_.id(toks[k]));
      const int nd = int(toks.size());
      if (p.role == kYear && k < 4) year_at[k] = pos;
      // Numeric month/day: right-aligned digits ("3" -> target "03": both map to the "3").
      if (p.role == kMonth || p.role == kDay) {
        int* at = p.role == kMonth ? month_at : day_at;
        const bool digits = toks[k][0] >= '0' && toks[k][0] <= '9';
        if (!digits) {
          if (k == 0) at[0] = at[1] = pos;  // the month word, not the '.' of "déc."
        } else if (nd == 1) {
          at[0] = at[1] = pos;
        } else if (k < 2 && nd == 2) {
          at[k] = pos;
        }
      }
    }
  }
  for (char c : ex.tgt_text) ex.tgt.push_back(tgt_.id(std::string(1, c)));
  ex.gold.assign(ex.tgt.size(), {});
  for (int i = 0; i < 4; ++i) ex.gold[size_t(i)] = {year_at[i]};
  // With years 1950..2049 the century digits are ambiguous: the year's first digit also
  // follows from its second (9, 5..8 -> "1"; 0..4 -> "2") and the second from the first
  // ("1" -> "9", "2" -> "0"). Reading either is a correct alignment: both are possible links.
  ex.possible.assign(ex.tgt.size(), {});
  ex.possible[0] = ex.possible[1] = {year_at[0], year_at[1]};
  for (int i = 0; i < 2; ++i) ex.gold[size_t(5 + i)] = {month_at[i]};
  for (int i = 0; i < 2; ++i) ex.gold[size_t(8 + i)] = {day_at[i]};
  return ex;
}

SeqExample DateTask::draw_aligned(Rng& rng) const {
  const long first = days_from_civil({kFirstYear, 1, 1});
  const long count = days_from_civil({kLastYear, 12, 31}) - first + 1;
  const long z = first + long(rng.below(uint32_t(count)));
  const int f = int(rng.below(kDateFormats));
  return example(civil_from_days(z), f);
}

}  // namespace attnlab
