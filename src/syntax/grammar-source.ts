// GENERATED from grammar.ohm by `npm run gen:grammar` (scripts/gen-grammar.ts); `npm run build` runs it too.
// Do not edit: edit grammar.ohm, then regenerate. test/syntax/grammar-source.test.ts checks that they agree.

/** The text of grammar.ohm, byte for byte: the normative filter grammar (REST grammar v1). */
export const GRAMMAR_SOURCE: string = `// listql REST grammar v1: the \`filter\` query parameter, and the \`fields\` parameter (start rule \`fields\`)
// (docs/language.md).
//
// Every rule is lexical (lower-case name), so Ohm never skips whitespace on its own: the grammar says
// exactly where whitespace is required (\`rsp\`), optional (\`sp\`) or forbidden (around "/", after "(").
// Keywords are exact lower case and reserved: a keyword rule only matches when no name character follows
// (\`android\`, \`order\`, \`isbn\`, \`TRUE\` are names). The \`sort\` parameter uses the same \`ident\` rule and is
// scanned by hand in src/syntax/sort.ts:
//   sort = sp term (sp "," sp term)* sp end
//   term = "-"? path (":" ("ci" | "nullsfirst" | "nullslast"))*   -- each modifier at most once, one placement
// (no whitespace around ":"); \`fields\` is scanned by hand in src/syntax/fields.ts, which must
// accept exactly what the \`fields\` rule accepts (test/syntax/fields-grammar.test.ts).
//
// Character classes are written inline in the hot rules (ident, string, whitespace) rather than as rule
// applications: Ohm memoizes every application, and per-character applications triple the parse time.
ListQL {
  filter = sp disjunction sp end

  disjunction = conjunction (rsp kwOr rsp conjunction)*
  conjunction = primary (rsp kwAnd rsp primary)*

  primary = quantifier | comparison | negation | group
  negation = kwNot rsp primary
  group = "(" sp disjunction sp ")"

  quantifier = path "/" kwQuantifier "(" ident ":" rsp disjunction sp ")"

  comparison = path rsp predicate
  predicate = valueOp rsp literal                   -- value
            | kwIn rsp list                         -- in
            | kwNot rsp kwIn rsp list               -- notIn
            | kwIs rsp (kwNot rsp)? kwNull          -- null

  // The i- operators (ieq … iendswith) match ignoring ASCII case: an extension of v1 (docs/language.md).
  valueOp = ("eq" | "ne" | "gte" | "gt" | "lte" | "lt" | "contains" | "startswith" | "endswith"
            | "ieq" | "ine" | "icontains" | "istartswith" | "iendswith") ~identRest

  list = "(" sp literal (sp "," sp literal)* sp ")"
  literal = string | number | kwBoolean

  path = ident ("/" ident)*
  ident = ~reserved ("a".."z" | "A".."Z" | "_") ("a".."z" | "A".."Z" | "_" | "0".."9")*
  identRest = "a".."z" | "A".."Z" | "_" | "0".."9"

  // Longest first where one keyword is a prefix of another (gte/gt, lte/lt).
  reserved = ("and" | "or" | "not" | "eq" | "ne" | "gte" | "gt" | "lte" | "lt" | "contains" | "startswith"
             | "endswith" | "ieq" | "ine" | "icontains" | "istartswith" | "iendswith" | "in" | "is" | "null"
             | "any" | "all" | "true" | "false" | "asc" | "desc") ~identRest
  kwAnd = "and" ~identRest
  kwOr = "or" ~identRest
  kwNot = "not" ~identRest
  kwIn = "in" ~identRest
  kwIs = "is" ~identRest
  kwNull = "null" ~identRest
  kwBoolean = ("true" | "false") ~identRest
  kwQuantifier = ("any" | "all") ~identRest

  // '' stands for one apostrophe. Control characters (U+0000–U+001F, U+007F) are not allowed raw.
  string = "'" ("''" | ~("'" | "\\x00".."\\x1F" | "\\x7F") any)* "'"

  number = "-"? integer fraction? exponent?
  integer = "0"                 -- zero
          | "1".."9" "0".."9"*  -- nonZero
  fraction = "." "0".."9"+
  exponent = ("e" | "E") ("+" | "-")? "0".."9"+

  // \`fields\`: names, a nested selection in parentheses after a relation's name, and an alias before such a
  // name (\`id, author(name), best:reviews(stars, body)\`). Field names are not reserved: \`desc\` and \`in\` are
  // names here. An output key (alias, else name) given twice at one level and nesting deeper than
  // maxSelectionDepth are refused after the match, as limits are for filter.
  fields = sp fieldItem (sp "," sp fieldItem)* sp end
  fieldItem = fieldName sp ":" sp fieldName sp fieldSelection  -- aliased
            | fieldName (sp fieldSelection)?                    -- plain
  fieldSelection = "(" sp fieldItem (sp "," sp fieldItem)* sp ")"
  fieldName = ("a".."z" | "A".."Z" | "_") ("a".."z" | "A".."Z" | "_" | "0".."9")*

  sp = (" " | "\\t" | "\\r" | "\\n")*
  rsp = ws+
  // The description names the failure "whitespace", so an error can say that whitespace was required here.
  ws (whitespace) = " " | "\\t" | "\\r" | "\\n"
}
`;

/** Return Ohm's ahead-of-time recipe of that grammar (ohm-js 17.5.0), for `makeRecipe`. */
export function grammarRecipe(): unknown {
  return [
    "grammar",
    {"source":"ListQL {\n  filter = sp disjunction sp end\n\n  disjunction = conjunction (rsp kwOr rsp conjunction)*\n  conjunction = primary (rsp kwAnd rsp primary)*\n\n  primary = quantifier | comparison | negation | group\n  negation = kwNot rsp primary\n  group = \"(\" sp disjunction sp \")\"\n\n  quantifier = path \"/\" kwQuantifier \"(\" ident \":\" rsp disjunction sp \")\"\n\n  comparison = path rsp predicate\n  predicate = valueOp rsp literal                   -- value\n            | kwIn rsp list                         -- in\n            | kwNot rsp kwIn rsp list               -- notIn\n            | kwIs rsp (kwNot rsp)? kwNull          -- null\n\n  // The i- operators (ieq … iendswith) match ignoring ASCII case: an extension of v1 (docs/language.md).\n  valueOp = (\"eq\" | \"ne\" | \"gte\" | \"gt\" | \"lte\" | \"lt\" | \"contains\" | \"startswith\" | \"endswith\"\n            | \"ieq\" | \"ine\" | \"icontains\" | \"istartswith\" | \"iendswith\") ~identRest\n\n  list = \"(\" sp literal (sp \",\" sp literal)* sp \")\"\n  literal = string | number | kwBoolean\n\n  path = ident (\"/\" ident)*\n  ident = ~reserved (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\") (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\")*\n  identRest = \"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\"\n\n  // Longest first where one keyword is a prefix of another (gte/gt, lte/lt).\n  reserved = (\"and\" | \"or\" | \"not\" | \"eq\" | \"ne\" | \"gte\" | \"gt\" | \"lte\" | \"lt\" | \"contains\" | \"startswith\"\n             | \"endswith\" | \"ieq\" | \"ine\" | \"icontains\" | \"istartswith\" | \"iendswith\" | \"in\" | \"is\" | \"null\"\n             | \"any\" | \"all\" | \"true\" | \"false\" | \"asc\" | \"desc\") ~identRest\n  kwAnd = \"and\" ~identRest\n  kwOr = \"or\" ~identRest\n  kwNot = \"not\" ~identRest\n  kwIn = \"in\" ~identRest\n  kwIs = \"is\" ~identRest\n  kwNull = \"null\" ~identRest\n  kwBoolean = (\"true\" | \"false\") ~identRest\n  kwQuantifier = (\"any\" | \"all\") ~identRest\n\n  // '' stands for one apostrophe. Control characters (U+0000–U+001F, U+007F) are not allowed raw.\n  string = \"'\" (\"''\" | ~(\"'\" | \"\\x00\"..\"\\x1F\" | \"\\x7F\") any)* \"'\"\n\n  number = \"-\"? integer fraction? exponent?\n  integer = \"0\"                 -- zero\n          | \"1\"..\"9\" \"0\"..\"9\"*  -- nonZero\n  fraction = \".\" \"0\"..\"9\"+\n  exponent = (\"e\" | \"E\") (\"+\" | \"-\")? \"0\"..\"9\"+\n\n  // `fields`: names, a nested selection in parentheses after a relation's name, and an alias before such a\n  // name (`id, author(name), best:reviews(stars, body)`). Field names are not reserved: `desc` and `in` are\n  // names here. An output key (alias, else name) given twice at one level and nesting deeper than\n  // maxSelectionDepth are refused after the match, as limits are for filter.\n  fields = sp fieldItem (sp \",\" sp fieldItem)* sp end\n  fieldItem = fieldName sp \":\" sp fieldName sp fieldSelection  -- aliased\n            | fieldName (sp fieldSelection)?                    -- plain\n  fieldSelection = \"(\" sp fieldItem (sp \",\" sp fieldItem)* sp \")\"\n  fieldName = (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\") (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\")*\n\n  sp = (\" \" | \"\\t\" | \"\\r\" | \"\\n\")*\n  rsp = ws+\n  // The description names the failure \"whitespace\", so an error can say that whitespace was required here.\n  ws (whitespace) = \" \" | \"\\t\" | \"\\r\" | \"\\n\"\n}"},
    "ListQL",
    null,
    "filter",
    {
      "filter": ["define",{"sourceInterval":[11,41]},null,[],["seq",{"sourceInterval":[20,41]},["app",{"sourceInterval":[20,22]},"sp",[]],["app",{"sourceInterval":[23,34]},"disjunction",[]],["app",{"sourceInterval":[35,37]},"sp",[]],["app",{"sourceInterval":[38,41]},"end",[]]]],
      "disjunction": ["define",{"sourceInterval":[45,98]},null,[],["seq",{"sourceInterval":[59,98]},["app",{"sourceInterval":[59,70]},"conjunction",[]],["star",{"sourceInterval":[71,98]},["seq",{"sourceInterval":[72,96]},["app",{"sourceInterval":[72,75]},"rsp",[]],["app",{"sourceInterval":[76,80]},"kwOr",[]],["app",{"sourceInterval":[81,84]},"rsp",[]],["app",{"sourceInterval":[85,96]},"conjunction",[]]]]]],
      "conjunction": ["define",{"sourceInterval":[101,147]},null,[],["seq",{"sourceInterval":[115,147]},["app",{"sourceInterval":[115,122]},"primary",[]],["star",{"sourceInterval":[123,147]},["seq",{"sourceInterval":[124,145]},["app",{"sourceInterval":[124,127]},"rsp",[]],["app",{"sourceInterval":[128,133]},"kwAnd",[]],["app",{"sourceInterval":[134,137]},"rsp",[]],["app",{"sourceInterval":[138,145]},"primary",[]]]]]],
      "primary": ["define",{"sourceInterval":[151,203]},null,[],["alt",{"sourceInterval":[161,203]},["app",{"sourceInterval":[161,171]},"quantifier",[]],["app",{"sourceInterval":[174,184]},"comparison",[]],["app",{"sourceInterval":[187,195]},"negation",[]],["app",{"sourceInterval":[198,203]},"group",[]]]],
      "negation": ["define",{"sourceInterval":[206,234]},null,[],["seq",{"sourceInterval":[217,234]},["app",{"sourceInterval":[217,222]},"kwNot",[]],["app",{"sourceInterval":[223,226]},"rsp",[]],["app",{"sourceInterval":[227,234]},"primary",[]]]],
      "group": ["define",{"sourceInterval":[237,270]},null,[],["seq",{"sourceInterval":[245,270]},["terminal",{"sourceInterval":[245,248]},"("],["app",{"sourceInterval":[249,251]},"sp",[]],["app",{"sourceInterval":[252,263]},"disjunction",[]],["app",{"sourceInterval":[264,266]},"sp",[]],["terminal",{"sourceInterval":[267,270]},")"]]],
      "quantifier": ["define",{"sourceInterval":[274,345]},null,[],["seq",{"sourceInterval":[287,345]},["app",{"sourceInterval":[287,291]},"path",[]],["terminal",{"sourceInterval":[292,295]},"/"],["app",{"sourceInterval":[296,308]},"kwQuantifier",[]],["terminal",{"sourceInterval":[309,312]},"("],["app",{"sourceInterval":[313,318]},"ident",[]],["terminal",{"sourceInterval":[319,322]},":"],["app",{"sourceInterval":[323,326]},"rsp",[]],["app",{"sourceInterval":[327,338]},"disjunction",[]],["app",{"sourceInterval":[339,341]},"sp",[]],["terminal",{"sourceInterval":[342,345]},")"]]],
      "comparison": ["define",{"sourceInterval":[349,380]},null,[],["seq",{"sourceInterval":[362,380]},["app",{"sourceInterval":[362,366]},"path",[]],["app",{"sourceInterval":[367,370]},"rsp",[]],["app",{"sourceInterval":[371,380]},"predicate",[]]]],
      "predicate_value": ["define",{"sourceInterval":[395,441]},null,[],["seq",{"sourceInterval":[395,414]},["app",{"sourceInterval":[395,402]},"valueOp",[]],["app",{"sourceInterval":[403,406]},"rsp",[]],["app",{"sourceInterval":[407,414]},"literal",[]]]],
      "predicate_in": ["define",{"sourceInterval":[456,499]},null,[],["seq",{"sourceInterval":[456,469]},["app",{"sourceInterval":[456,460]},"kwIn",[]],["app",{"sourceInterval":[461,464]},"rsp",[]],["app",{"sourceInterval":[465,469]},"list",[]]]],
      "predicate_notIn": ["define",{"sourceInterval":[514,560]},null,[],["seq",{"sourceInterval":[514,537]},["app",{"sourceInterval":[514,519]},"kwNot",[]],["app",{"sourceInterval":[520,523]},"rsp",[]],["app",{"sourceInterval":[524,528]},"kwIn",[]],["app",{"sourceInterval":[529,532]},"rsp",[]],["app",{"sourceInterval":[533,537]},"list",[]]]],
      "predicate_null": ["define",{"sourceInterval":[575,620]},null,[],["seq",{"sourceInterval":[575,603]},["app",{"sourceInterval":[575,579]},"kwIs",[]],["app",{"sourceInterval":[580,583]},"rsp",[]],["opt",{"sourceInterval":[584,596]},["seq",{"sourceInterval":[585,594]},["app",{"sourceInterval":[585,590]},"kwNot",[]],["app",{"sourceInterval":[591,594]},"rsp",[]]]],["app",{"sourceInterval":[597,603]},"kwNull",[]]]],
      "predicate": ["define",{"sourceInterval":[383,620]},null,[],["alt",{"sourceInterval":[395,620]},["app",{"sourceInterval":[395,414]},"predicate_value",[]],["app",{"sourceInterval":[456,469]},"predicate_in",[]],["app",{"sourceInterval":[514,537]},"predicate_notIn",[]],["app",{"sourceInterval":[575,603]},"predicate_null",[]]]],
      "valueOp": ["define",{"sourceInterval":[730,907]},null,[],["seq",{"sourceInterval":[740,907]},["alt",{"sourceInterval":[741,895]},["terminal",{"sourceInterval":[741,745]},"eq"],["terminal",{"sourceInterval":[748,752]},"ne"],["terminal",{"sourceInterval":[755,760]},"gte"],["terminal",{"sourceInterval":[763,767]},"gt"],["terminal",{"sourceInterval":[770,775]},"lte"],["terminal",{"sourceInterval":[778,782]},"lt"],["terminal",{"sourceInterval":[785,795]},"contains"],["terminal",{"sourceInterval":[798,810]},"startswith"],["terminal",{"sourceInterval":[813,823]},"endswith"],["terminal",{"sourceInterval":[838,843]},"ieq"],["terminal",{"sourceInterval":[846,851]},"ine"],["terminal",{"sourceInterval":[854,865]},"icontains"],["terminal",{"sourceInterval":[868,881]},"istartswith"],["terminal",{"sourceInterval":[884,895]},"iendswith"]],["not",{"sourceInterval":[897,907]},["app",{"sourceInterval":[898,907]},"identRest",[]]]]],
      "list": ["define",{"sourceInterval":[911,960]},null,[],["seq",{"sourceInterval":[918,960]},["terminal",{"sourceInterval":[918,921]},"("],["app",{"sourceInterval":[922,924]},"sp",[]],["app",{"sourceInterval":[925,932]},"literal",[]],["star",{"sourceInterval":[933,953]},["seq",{"sourceInterval":[934,951]},["app",{"sourceInterval":[934,936]},"sp",[]],["terminal",{"sourceInterval":[937,940]},","],["app",{"sourceInterval":[941,943]},"sp",[]],["app",{"sourceInterval":[944,951]},"literal",[]]]],["app",{"sourceInterval":[954,956]},"sp",[]],["terminal",{"sourceInterval":[957,960]},")"]]],
      "literal": ["define",{"sourceInterval":[963,1000]},null,[],["alt",{"sourceInterval":[973,1000]},["app",{"sourceInterval":[973,979]},"string",[]],["app",{"sourceInterval":[982,988]},"number",[]],["app",{"sourceInterval":[991,1000]},"kwBoolean",[]]]],
      "path": ["define",{"sourceInterval":[1004,1029]},null,[],["seq",{"sourceInterval":[1011,1029]},["app",{"sourceInterval":[1011,1016]},"ident",[]],["star",{"sourceInterval":[1017,1029]},["seq",{"sourceInterval":[1018,1027]},["terminal",{"sourceInterval":[1018,1021]},"/"],["app",{"sourceInterval":[1022,1027]},"ident",[]]]]]],
      "ident": ["define",{"sourceInterval":[1032,1117]},null,[],["seq",{"sourceInterval":[1040,1117]},["not",{"sourceInterval":[1040,1049]},["app",{"sourceInterval":[1041,1049]},"reserved",[]]],["alt",{"sourceInterval":[1051,1076]},["range",{"sourceInterval":[1051,1059]},"a","z"],["range",{"sourceInterval":[1062,1070]},"A","Z"],["terminal",{"sourceInterval":[1073,1076]},"_"]],["star",{"sourceInterval":[1078,1117]},["alt",{"sourceInterval":[1079,1115]},["range",{"sourceInterval":[1079,1087]},"a","z"],["range",{"sourceInterval":[1090,1098]},"A","Z"],["terminal",{"sourceInterval":[1101,1104]},"_"],["range",{"sourceInterval":[1107,1115]},"0","9"]]]]],
      "identRest": ["define",{"sourceInterval":[1120,1168]},null,[],["alt",{"sourceInterval":[1132,1168]},["range",{"sourceInterval":[1132,1140]},"a","z"],["range",{"sourceInterval":[1143,1151]},"A","Z"],["terminal",{"sourceInterval":[1154,1157]},"_"],["range",{"sourceInterval":[1160,1168]},"0","9"]]],
      "reserved": ["define",{"sourceInterval":[1250,1540]},null,[],["seq",{"sourceInterval":[1261,1540]},["alt",{"sourceInterval":[1262,1528]},["terminal",{"sourceInterval":[1262,1267]},"and"],["terminal",{"sourceInterval":[1270,1274]},"or"],["terminal",{"sourceInterval":[1277,1282]},"not"],["terminal",{"sourceInterval":[1285,1289]},"eq"],["terminal",{"sourceInterval":[1292,1296]},"ne"],["terminal",{"sourceInterval":[1299,1304]},"gte"],["terminal",{"sourceInterval":[1307,1311]},"gt"],["terminal",{"sourceInterval":[1314,1319]},"lte"],["terminal",{"sourceInterval":[1322,1326]},"lt"],["terminal",{"sourceInterval":[1329,1339]},"contains"],["terminal",{"sourceInterval":[1342,1354]},"startswith"],["terminal",{"sourceInterval":[1370,1380]},"endswith"],["terminal",{"sourceInterval":[1383,1388]},"ieq"],["terminal",{"sourceInterval":[1391,1396]},"ine"],["terminal",{"sourceInterval":[1399,1410]},"icontains"],["terminal",{"sourceInterval":[1413,1426]},"istartswith"],["terminal",{"sourceInterval":[1429,1440]},"iendswith"],["terminal",{"sourceInterval":[1443,1447]},"in"],["terminal",{"sourceInterval":[1450,1454]},"is"],["terminal",{"sourceInterval":[1457,1463]},"null"],["terminal",{"sourceInterval":[1479,1484]},"any"],["terminal",{"sourceInterval":[1487,1492]},"all"],["terminal",{"sourceInterval":[1495,1501]},"true"],["terminal",{"sourceInterval":[1504,1511]},"false"],["terminal",{"sourceInterval":[1514,1519]},"asc"],["terminal",{"sourceInterval":[1522,1528]},"desc"]],["not",{"sourceInterval":[1530,1540]},["app",{"sourceInterval":[1531,1540]},"identRest",[]]]]],
      "kwAnd": ["define",{"sourceInterval":[1543,1567]},null,[],["seq",{"sourceInterval":[1551,1567]},["terminal",{"sourceInterval":[1551,1556]},"and"],["not",{"sourceInterval":[1557,1567]},["app",{"sourceInterval":[1558,1567]},"identRest",[]]]]],
      "kwOr": ["define",{"sourceInterval":[1570,1592]},null,[],["seq",{"sourceInterval":[1577,1592]},["terminal",{"sourceInterval":[1577,1581]},"or"],["not",{"sourceInterval":[1582,1592]},["app",{"sourceInterval":[1583,1592]},"identRest",[]]]]],
      "kwNot": ["define",{"sourceInterval":[1595,1619]},null,[],["seq",{"sourceInterval":[1603,1619]},["terminal",{"sourceInterval":[1603,1608]},"not"],["not",{"sourceInterval":[1609,1619]},["app",{"sourceInterval":[1610,1619]},"identRest",[]]]]],
      "kwIn": ["define",{"sourceInterval":[1622,1644]},null,[],["seq",{"sourceInterval":[1629,1644]},["terminal",{"sourceInterval":[1629,1633]},"in"],["not",{"sourceInterval":[1634,1644]},["app",{"sourceInterval":[1635,1644]},"identRest",[]]]]],
      "kwIs": ["define",{"sourceInterval":[1647,1669]},null,[],["seq",{"sourceInterval":[1654,1669]},["terminal",{"sourceInterval":[1654,1658]},"is"],["not",{"sourceInterval":[1659,1669]},["app",{"sourceInterval":[1660,1669]},"identRest",[]]]]],
      "kwNull": ["define",{"sourceInterval":[1672,1698]},null,[],["seq",{"sourceInterval":[1681,1698]},["terminal",{"sourceInterval":[1681,1687]},"null"],["not",{"sourceInterval":[1688,1698]},["app",{"sourceInterval":[1689,1698]},"identRest",[]]]]],
      "kwBoolean": ["define",{"sourceInterval":[1701,1742]},null,[],["seq",{"sourceInterval":[1713,1742]},["alt",{"sourceInterval":[1714,1730]},["terminal",{"sourceInterval":[1714,1720]},"true"],["terminal",{"sourceInterval":[1723,1730]},"false"]],["not",{"sourceInterval":[1732,1742]},["app",{"sourceInterval":[1733,1742]},"identRest",[]]]]],
      "kwQuantifier": ["define",{"sourceInterval":[1745,1786]},null,[],["seq",{"sourceInterval":[1760,1786]},["alt",{"sourceInterval":[1761,1774]},["terminal",{"sourceInterval":[1761,1766]},"any"],["terminal",{"sourceInterval":[1769,1774]},"all"]],["not",{"sourceInterval":[1776,1786]},["app",{"sourceInterval":[1777,1786]},"identRest",[]]]]],
      "string": ["define",{"sourceInterval":[1889,1952]},null,[],["seq",{"sourceInterval":[1898,1952]},["terminal",{"sourceInterval":[1898,1901]},"'"],["star",{"sourceInterval":[1902,1948]},["alt",{"sourceInterval":[1903,1946]},["terminal",{"sourceInterval":[1903,1907]},"''"],["seq",{"sourceInterval":[1910,1946]},["not",{"sourceInterval":[1910,1942]},["alt",{"sourceInterval":[1912,1941]},["terminal",{"sourceInterval":[1912,1915]},"'"],["range",{"sourceInterval":[1918,1932]},"\u0000","\u001f"],["terminal",{"sourceInterval":[1935,1941]},""]]],["app",{"sourceInterval":[1943,1946]},"any",[]]]]],["terminal",{"sourceInterval":[1949,1952]},"'"]]],
      "number": ["define",{"sourceInterval":[1956,1997]},null,[],["seq",{"sourceInterval":[1965,1997]},["opt",{"sourceInterval":[1965,1969]},["terminal",{"sourceInterval":[1965,1968]},"-"]],["app",{"sourceInterval":[1970,1977]},"integer",[]],["opt",{"sourceInterval":[1978,1987]},["app",{"sourceInterval":[1978,1986]},"fraction",[]]],["opt",{"sourceInterval":[1988,1997]},["app",{"sourceInterval":[1988,1996]},"exponent",[]]]]],
      "integer_zero": ["define",{"sourceInterval":[2010,2037]},null,[],["terminal",{"sourceInterval":[2010,2013]},"0"]],
      "integer_nonZero": ["define",{"sourceInterval":[2050,2080]},null,[],["seq",{"sourceInterval":[2050,2068]},["range",{"sourceInterval":[2050,2058]},"1","9"],["star",{"sourceInterval":[2059,2068]},["range",{"sourceInterval":[2059,2067]},"0","9"]]]],
      "integer": ["define",{"sourceInterval":[2000,2080]},null,[],["alt",{"sourceInterval":[2010,2080]},["app",{"sourceInterval":[2010,2013]},"integer_zero",[]],["app",{"sourceInterval":[2050,2068]},"integer_nonZero",[]]]],
      "fraction": ["define",{"sourceInterval":[2083,2107]},null,[],["seq",{"sourceInterval":[2094,2107]},["terminal",{"sourceInterval":[2094,2097]},"."],["plus",{"sourceInterval":[2098,2107]},["range",{"sourceInterval":[2098,2106]},"0","9"]]]],
      "exponent": ["define",{"sourceInterval":[2110,2155]},null,[],["seq",{"sourceInterval":[2121,2155]},["alt",{"sourceInterval":[2122,2131]},["terminal",{"sourceInterval":[2122,2125]},"e"],["terminal",{"sourceInterval":[2128,2131]},"E"]],["opt",{"sourceInterval":[2133,2145]},["alt",{"sourceInterval":[2134,2143]},["terminal",{"sourceInterval":[2134,2137]},"+"],["terminal",{"sourceInterval":[2140,2143]},"-"]]],["plus",{"sourceInterval":[2146,2155]},["range",{"sourceInterval":[2146,2154]},"0","9"]]]],
      "fields": ["define",{"sourceInterval":[2553,2604]},null,[],["seq",{"sourceInterval":[2562,2604]},["app",{"sourceInterval":[2562,2564]},"sp",[]],["app",{"sourceInterval":[2565,2574]},"fieldItem",[]],["star",{"sourceInterval":[2575,2597]},["seq",{"sourceInterval":[2576,2595]},["app",{"sourceInterval":[2576,2578]},"sp",[]],["terminal",{"sourceInterval":[2579,2582]},","],["app",{"sourceInterval":[2583,2585]},"sp",[]],["app",{"sourceInterval":[2586,2595]},"fieldItem",[]]]],["app",{"sourceInterval":[2598,2600]},"sp",[]],["app",{"sourceInterval":[2601,2604]},"end",[]]]],
      "fieldItem_aliased": ["define",{"sourceInterval":[2619,2678]},null,[],["seq",{"sourceInterval":[2619,2666]},["app",{"sourceInterval":[2619,2628]},"fieldName",[]],["app",{"sourceInterval":[2629,2631]},"sp",[]],["terminal",{"sourceInterval":[2632,2635]},":"],["app",{"sourceInterval":[2636,2638]},"sp",[]],["app",{"sourceInterval":[2639,2648]},"fieldName",[]],["app",{"sourceInterval":[2649,2651]},"sp",[]],["app",{"sourceInterval":[2652,2666]},"fieldSelection",[]]]],
      "fieldItem_plain": ["define",{"sourceInterval":[2693,2751]},null,[],["seq",{"sourceInterval":[2693,2723]},["app",{"sourceInterval":[2693,2702]},"fieldName",[]],["opt",{"sourceInterval":[2703,2723]},["seq",{"sourceInterval":[2704,2721]},["app",{"sourceInterval":[2704,2706]},"sp",[]],["app",{"sourceInterval":[2707,2721]},"fieldSelection",[]]]]]],
      "fieldItem": ["define",{"sourceInterval":[2607,2751]},null,[],["alt",{"sourceInterval":[2619,2751]},["app",{"sourceInterval":[2619,2666]},"fieldItem_aliased",[]],["app",{"sourceInterval":[2693,2723]},"fieldItem_plain",[]]]],
      "fieldSelection": ["define",{"sourceInterval":[2754,2817]},null,[],["seq",{"sourceInterval":[2771,2817]},["terminal",{"sourceInterval":[2771,2774]},"("],["app",{"sourceInterval":[2775,2777]},"sp",[]],["app",{"sourceInterval":[2778,2787]},"fieldItem",[]],["star",{"sourceInterval":[2788,2810]},["seq",{"sourceInterval":[2789,2808]},["app",{"sourceInterval":[2789,2791]},"sp",[]],["terminal",{"sourceInterval":[2792,2795]},","],["app",{"sourceInterval":[2796,2798]},"sp",[]],["app",{"sourceInterval":[2799,2808]},"fieldItem",[]]]],["app",{"sourceInterval":[2811,2813]},"sp",[]],["terminal",{"sourceInterval":[2814,2817]},")"]]],
      "fieldName": ["define",{"sourceInterval":[2820,2899]},null,[],["seq",{"sourceInterval":[2832,2899]},["alt",{"sourceInterval":[2833,2858]},["range",{"sourceInterval":[2833,2841]},"a","z"],["range",{"sourceInterval":[2844,2852]},"A","Z"],["terminal",{"sourceInterval":[2855,2858]},"_"]],["star",{"sourceInterval":[2860,2899]},["alt",{"sourceInterval":[2861,2897]},["range",{"sourceInterval":[2861,2869]},"a","z"],["range",{"sourceInterval":[2872,2880]},"A","Z"],["terminal",{"sourceInterval":[2883,2886]},"_"],["range",{"sourceInterval":[2889,2897]},"0","9"]]]]],
      "sp": ["define",{"sourceInterval":[2903,2935]},null,[],["star",{"sourceInterval":[2908,2935]},["alt",{"sourceInterval":[2909,2933]},["terminal",{"sourceInterval":[2909,2912]}," "],["terminal",{"sourceInterval":[2915,2919]},"\t"],["terminal",{"sourceInterval":[2922,2926]},"\r"],["terminal",{"sourceInterval":[2929,2933]},"\n"]]]],
      "rsp": ["define",{"sourceInterval":[2938,2947]},null,[],["plus",{"sourceInterval":[2944,2947]},["app",{"sourceInterval":[2944,2946]},"ws",[]]]],
      "ws": ["define",{"sourceInterval":[3058,3100]},"whitespace",[],["alt",{"sourceInterval":[3076,3100]},["terminal",{"sourceInterval":[3076,3079]}," "],["terminal",{"sourceInterval":[3082,3086]},"\t"],["terminal",{"sourceInterval":[3089,3093]},"\r"],["terminal",{"sourceInterval":[3096,3100]},"\n"]]],
    },
  ];
}
