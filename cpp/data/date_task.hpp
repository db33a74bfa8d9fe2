// Date translation: a date written in one of 13 formats of four locales (en-GB, en-US, fr-FR,
// ko-KR; the full/long/medium/short styles of Intl.DateTimeFormat, e.g. "Saturday, 25 December
// 2021", "samedi 25 décembre 2021", "2021년 12월 25일 토요일") -> ISO "2021-12-25", for dates in
// 1950..2049. Targets are characters; every digit of the target is aligned with the source
// token it comes from (the year digit, the month word or digit, the day digit): the sure links.
// The two century digits determine each other in this range, so for the alignment error rate
// their links are possible ones, both digits for each (see example()).
#pragma once
#include <string>

#include "data/seq_task.hpp"

namespace attnlab {

struct CivilDate {
  int year, month, day;  // month 1..12, day 1..31
};

constexpr int kDateFormats = 13;
constexpr int kFirstYear = 1950, kLastYear = 2049;

// Days since 1970-01-01 and back (proleptic Gregorian).
long days_from_civil(CivilDate d);
CivilDate civil_from_days(long z);
int weekday(CivilDate d);  // 0 = Sunday

// The source text of date d in format f (0 <= f < kDateFormats) and that format's locale/style.
std::string format_date(CivilDate d, int f);
std::string date_format_locale(int f);  // e.g. "en-GB"
std::string date_format_style(int f);   // "full" | "long" | "medium" | "short"
std::string iso_date(CivilDate d);

class DateTask : public SeqTask {
 public:
  DateTask();
  std::string name() const override { return "dates"; }
  SeqExample example(CivilDate d, int f) const;

 protected:
  SeqExample draw_aligned(Rng& rng) const override;
};

}  // namespace attnlab
