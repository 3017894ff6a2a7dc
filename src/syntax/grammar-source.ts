// GENERATED from grammar.ohm by `npm run gen:grammar` (scripts/gen-grammar.ts); `npm run build` runs it too.
// Do not edit: edit grammar.ohm, then regenerate. test/syntax-grammar-source.test.ts checks that they agree.

/** The text of grammar.ohm, byte for byte: the normative filter grammar (REST grammar v1). */
export const GRAMMAR_SOURCE: string = `// listql REST grammar v1: the \`filter\` query parameter (docs/language.md).
//
// Every rule is lexical (lower-case name), so Ohm never skips whitespace on its own: the grammar says
// exactly where whitespace is required (\`rsp\`), optional (\`sp\`) or forbidden (around "/", after "(").
// Keywords are exact lower case and reserved: a keyword rule only matches when no name character follows
// (\`android\`, \`order\`, \`isbn\`, \`TRUE\` are names). The \`sort\` parameter uses the same \`ident\` rule and is
// scanned by hand in src/syntax/sort.ts.
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

  valueOp = ("eq" | "ne" | "gte" | "gt" | "lte" | "lt" | "contains" | "startswith" | "endswith") ~identRest

  list = "(" sp literal (sp "," sp literal)* sp ")"
  literal = string | number | kwBoolean

  path = ident ("/" ident)*
  ident = ~reserved ("a".."z" | "A".."Z" | "_") ("a".."z" | "A".."Z" | "_" | "0".."9")*
  identRest = "a".."z" | "A".."Z" | "_" | "0".."9"

  // Longest first where one keyword is a prefix of another (gte/gt, lte/lt).
  reserved = ("and" | "or" | "not" | "eq" | "ne" | "gte" | "gt" | "lte" | "lt" | "contains" | "startswith"
             | "endswith" | "in" | "is" | "null" | "any" | "all" | "true" | "false" | "asc" | "desc") ~identRest
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
    {"source":"ListQL {\n  filter = sp disjunction sp end\n\n  disjunction = conjunction (rsp kwOr rsp conjunction)*\n  conjunction = primary (rsp kwAnd rsp primary)*\n\n  primary = quantifier | comparison | negation | group\n  negation = kwNot rsp primary\n  group = \"(\" sp disjunction sp \")\"\n\n  quantifier = path \"/\" kwQuantifier \"(\" ident \":\" rsp disjunction sp \")\"\n\n  comparison = path rsp predicate\n  predicate = valueOp rsp literal                   -- value\n            | kwIn rsp list                         -- in\n            | kwNot rsp kwIn rsp list               -- notIn\n            | kwIs rsp (kwNot rsp)? kwNull          -- null\n\n  valueOp = (\"eq\" | \"ne\" | \"gte\" | \"gt\" | \"lte\" | \"lt\" | \"contains\" | \"startswith\" | \"endswith\") ~identRest\n\n  list = \"(\" sp literal (sp \",\" sp literal)* sp \")\"\n  literal = string | number | kwBoolean\n\n  path = ident (\"/\" ident)*\n  ident = ~reserved (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\") (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\")*\n  identRest = \"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\"\n\n  // Longest first where one keyword is a prefix of another (gte/gt, lte/lt).\n  reserved = (\"and\" | \"or\" | \"not\" | \"eq\" | \"ne\" | \"gte\" | \"gt\" | \"lte\" | \"lt\" | \"contains\" | \"startswith\"\n             | \"endswith\" | \"in\" | \"is\" | \"null\" | \"any\" | \"all\" | \"true\" | \"false\" | \"asc\" | \"desc\") ~identRest\n  kwAnd = \"and\" ~identRest\n  kwOr = \"or\" ~identRest\n  kwNot = \"not\" ~identRest\n  kwIn = \"in\" ~identRest\n  kwIs = \"is\" ~identRest\n  kwNull = \"null\" ~identRest\n  kwBoolean = (\"true\" | \"false\") ~identRest\n  kwQuantifier = (\"any\" | \"all\") ~identRest\n\n  // '' stands for one apostrophe. Control characters (U+0000–U+001F, U+007F) are not allowed raw.\n  string = \"'\" (\"''\" | ~(\"'\" | \"\\x00\"..\"\\x1F\" | \"\\x7F\") any)* \"'\"\n\n  number = \"-\"? integer fraction? exponent?\n  integer = \"0\"                 -- zero\n          | \"1\"..\"9\" \"0\"..\"9\"*  -- nonZero\n  fraction = \".\" \"0\"..\"9\"+\n  exponent = (\"e\" | \"E\") (\"+\" | \"-\")? \"0\"..\"9\"+\n\n  sp = (\" \" | \"\\t\" | \"\\r\" | \"\\n\")*\n  rsp = ws+\n  // The description names the failure \"whitespace\", so an error can say that whitespace was required here.\n  ws (whitespace) = \" \" | \"\\t\" | \"\\r\" | \"\\n\"\n}"},
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
      "valueOp": ["define",{"sourceInterval":[624,729]},null,[],["seq",{"sourceInterval":[634,729]},["alt",{"sourceInterval":[635,717]},["terminal",{"sourceInterval":[635,639]},"eq"],["terminal",{"sourceInterval":[642,646]},"ne"],["terminal",{"sourceInterval":[649,654]},"gte"],["terminal",{"sourceInterval":[657,661]},"gt"],["terminal",{"sourceInterval":[664,669]},"lte"],["terminal",{"sourceInterval":[672,676]},"lt"],["terminal",{"sourceInterval":[679,689]},"contains"],["terminal",{"sourceInterval":[692,704]},"startswith"],["terminal",{"sourceInterval":[707,717]},"endswith"]],["not",{"sourceInterval":[719,729]},["app",{"sourceInterval":[720,729]},"identRest",[]]]]],
      "list": ["define",{"sourceInterval":[733,782]},null,[],["seq",{"sourceInterval":[740,782]},["terminal",{"sourceInterval":[740,743]},"("],["app",{"sourceInterval":[744,746]},"sp",[]],["app",{"sourceInterval":[747,754]},"literal",[]],["star",{"sourceInterval":[755,775]},["seq",{"sourceInterval":[756,773]},["app",{"sourceInterval":[756,758]},"sp",[]],["terminal",{"sourceInterval":[759,762]},","],["app",{"sourceInterval":[763,765]},"sp",[]],["app",{"sourceInterval":[766,773]},"literal",[]]]],["app",{"sourceInterval":[776,778]},"sp",[]],["terminal",{"sourceInterval":[779,782]},")"]]],
      "literal": ["define",{"sourceInterval":[785,822]},null,[],["alt",{"sourceInterval":[795,822]},["app",{"sourceInterval":[795,801]},"string",[]],["app",{"sourceInterval":[804,810]},"number",[]],["app",{"sourceInterval":[813,822]},"kwBoolean",[]]]],
      "path": ["define",{"sourceInterval":[826,851]},null,[],["seq",{"sourceInterval":[833,851]},["app",{"sourceInterval":[833,838]},"ident",[]],["star",{"sourceInterval":[839,851]},["seq",{"sourceInterval":[840,849]},["terminal",{"sourceInterval":[840,843]},"/"],["app",{"sourceInterval":[844,849]},"ident",[]]]]]],
      "ident": ["define",{"sourceInterval":[854,939]},null,[],["seq",{"sourceInterval":[862,939]},["not",{"sourceInterval":[862,871]},["app",{"sourceInterval":[863,871]},"reserved",[]]],["alt",{"sourceInterval":[873,898]},["range",{"sourceInterval":[873,881]},"a","z"],["range",{"sourceInterval":[884,892]},"A","Z"],["terminal",{"sourceInterval":[895,898]},"_"]],["star",{"sourceInterval":[900,939]},["alt",{"sourceInterval":[901,937]},["range",{"sourceInterval":[901,909]},"a","z"],["range",{"sourceInterval":[912,920]},"A","Z"],["terminal",{"sourceInterval":[923,926]},"_"],["range",{"sourceInterval":[929,937]},"0","9"]]]]],
      "identRest": ["define",{"sourceInterval":[942,990]},null,[],["alt",{"sourceInterval":[954,990]},["range",{"sourceInterval":[954,962]},"a","z"],["range",{"sourceInterval":[965,973]},"A","Z"],["terminal",{"sourceInterval":[976,979]},"_"],["range",{"sourceInterval":[982,990]},"0","9"]]],
      "reserved": ["define",{"sourceInterval":[1072,1289]},null,[],["seq",{"sourceInterval":[1083,1289]},["alt",{"sourceInterval":[1084,1277]},["terminal",{"sourceInterval":[1084,1089]},"and"],["terminal",{"sourceInterval":[1092,1096]},"or"],["terminal",{"sourceInterval":[1099,1104]},"not"],["terminal",{"sourceInterval":[1107,1111]},"eq"],["terminal",{"sourceInterval":[1114,1118]},"ne"],["terminal",{"sourceInterval":[1121,1126]},"gte"],["terminal",{"sourceInterval":[1129,1133]},"gt"],["terminal",{"sourceInterval":[1136,1141]},"lte"],["terminal",{"sourceInterval":[1144,1148]},"lt"],["terminal",{"sourceInterval":[1151,1161]},"contains"],["terminal",{"sourceInterval":[1164,1176]},"startswith"],["terminal",{"sourceInterval":[1192,1202]},"endswith"],["terminal",{"sourceInterval":[1205,1209]},"in"],["terminal",{"sourceInterval":[1212,1216]},"is"],["terminal",{"sourceInterval":[1219,1225]},"null"],["terminal",{"sourceInterval":[1228,1233]},"any"],["terminal",{"sourceInterval":[1236,1241]},"all"],["terminal",{"sourceInterval":[1244,1250]},"true"],["terminal",{"sourceInterval":[1253,1260]},"false"],["terminal",{"sourceInterval":[1263,1268]},"asc"],["terminal",{"sourceInterval":[1271,1277]},"desc"]],["not",{"sourceInterval":[1279,1289]},["app",{"sourceInterval":[1280,1289]},"identRest",[]]]]],
      "kwAnd": ["define",{"sourceInterval":[1292,1316]},null,[],["seq",{"sourceInterval":[1300,1316]},["terminal",{"sourceInterval":[1300,1305]},"and"],["not",{"sourceInterval":[1306,1316]},["app",{"sourceInterval":[1307,1316]},"identRest",[]]]]],
      "kwOr": ["define",{"sourceInterval":[1319,1341]},null,[],["seq",{"sourceInterval":[1326,1341]},["terminal",{"sourceInterval":[1326,1330]},"or"],["not",{"sourceInterval":[1331,1341]},["app",{"sourceInterval":[1332,1341]},"identRest",[]]]]],
      "kwNot": ["define",{"sourceInterval":[1344,1368]},null,[],["seq",{"sourceInterval":[1352,1368]},["terminal",{"sourceInterval":[1352,1357]},"not"],["not",{"sourceInterval":[1358,1368]},["app",{"sourceInterval":[1359,1368]},"identRest",[]]]]],
      "kwIn": ["define",{"sourceInterval":[1371,1393]},null,[],["seq",{"sourceInterval":[1378,1393]},["terminal",{"sourceInterval":[1378,1382]},"in"],["not",{"sourceInterval":[1383,1393]},["app",{"sourceInterval":[1384,1393]},"identRest",[]]]]],
      "kwIs": ["define",{"sourceInterval":[1396,1418]},null,[],["seq",{"sourceInterval":[1403,1418]},["terminal",{"sourceInterval":[1403,1407]},"is"],["not",{"sourceInterval":[1408,1418]},["app",{"sourceInterval":[1409,1418]},"identRest",[]]]]],
      "kwNull": ["define",{"sourceInterval":[1421,1447]},null,[],["seq",{"sourceInterval":[1430,1447]},["terminal",{"sourceInterval":[1430,1436]},"null"],["not",{"sourceInterval":[1437,1447]},["app",{"sourceInterval":[1438,1447]},"identRest",[]]]]],
      "kwBoolean": ["define",{"sourceInterval":[1450,1491]},null,[],["seq",{"sourceInterval":[1462,1491]},["alt",{"sourceInterval":[1463,1479]},["terminal",{"sourceInterval":[1463,1469]},"true"],["terminal",{"sourceInterval":[1472,1479]},"false"]],["not",{"sourceInterval":[1481,1491]},["app",{"sourceInterval":[1482,1491]},"identRest",[]]]]],
      "kwQuantifier": ["define",{"sourceInterval":[1494,1535]},null,[],["seq",{"sourceInterval":[1509,1535]},["alt",{"sourceInterval":[1510,1523]},["terminal",{"sourceInterval":[1510,1515]},"any"],["terminal",{"sourceInterval":[1518,1523]},"all"]],["not",{"sourceInterval":[1525,1535]},["app",{"sourceInterval":[1526,1535]},"identRest",[]]]]],
      "string": ["define",{"sourceInterval":[1638,1701]},null,[],["seq",{"sourceInterval":[1647,1701]},["terminal",{"sourceInterval":[1647,1650]},"'"],["star",{"sourceInterval":[1651,1697]},["alt",{"sourceInterval":[1652,1695]},["terminal",{"sourceInterval":[1652,1656]},"''"],["seq",{"sourceInterval":[1659,1695]},["not",{"sourceInterval":[1659,1691]},["alt",{"sourceInterval":[1661,1690]},["terminal",{"sourceInterval":[1661,1664]},"'"],["range",{"sourceInterval":[1667,1681]},"\u0000","\u001f"],["terminal",{"sourceInterval":[1684,1690]},""]]],["app",{"sourceInterval":[1692,1695]},"any",[]]]]],["terminal",{"sourceInterval":[1698,1701]},"'"]]],
      "number": ["define",{"sourceInterval":[1705,1746]},null,[],["seq",{"sourceInterval":[1714,1746]},["opt",{"sourceInterval":[1714,1718]},["terminal",{"sourceInterval":[1714,1717]},"-"]],["app",{"sourceInterval":[1719,1726]},"integer",[]],["opt",{"sourceInterval":[1727,1736]},["app",{"sourceInterval":[1727,1735]},"fraction",[]]],["opt",{"sourceInterval":[1737,1746]},["app",{"sourceInterval":[1737,1745]},"exponent",[]]]]],
      "integer_zero": ["define",{"sourceInterval":[1759,1786]},null,[],["terminal",{"sourceInterval":[1759,1762]},"0"]],
      "integer_nonZero": ["define",{"sourceInterval":[1799,1829]},null,[],["seq",{"sourceInterval":[1799,1817]},["range",{"sourceInterval":[1799,1807]},"1","9"],["star",{"sourceInterval":[1808,1817]},["range",{"sourceInterval":[1808,1816]},"0","9"]]]],
      "integer": ["define",{"sourceInterval":[1749,1829]},null,[],["alt",{"sourceInterval":[1759,1829]},["app",{"sourceInterval":[1759,1762]},"integer_zero",[]],["app",{"sourceInterval":[1799,1817]},"integer_nonZero",[]]]],
      "fraction": ["define",{"sourceInterval":[1832,1856]},null,[],["seq",{"sourceInterval":[1843,1856]},["terminal",{"sourceInterval":[1843,1846]},"."],["plus",{"sourceInterval":[1847,1856]},["range",{"sourceInterval":[1847,1855]},"0","9"]]]],
      "exponent": ["define",{"sourceInterval":[1859,1904]},null,[],["seq",{"sourceInterval":[1870,1904]},["alt",{"sourceInterval":[1871,1880]},["terminal",{"sourceInterval":[1871,1874]},"e"],["terminal",{"sourceInterval":[1877,1880]},"E"]],["opt",{"sourceInterval":[1882,1894]},["alt",{"sourceInterval":[1883,1892]},["terminal",{"sourceInterval":[1883,1886]},"+"],["terminal",{"sourceInterval":[1889,1892]},"-"]]],["plus",{"sourceInterval":[1895,1904]},["range",{"sourceInterval":[1895,1903]},"0","9"]]]],
      "sp": ["define",{"sourceInterval":[1908,1940]},null,[],["star",{"sourceInterval":[1913,1940]},["alt",{"sourceInterval":[1914,1938]},["terminal",{"sourceInterval":[1914,1917]}," "],["terminal",{"sourceInterval":[1920,1924]},"\t"],["terminal",{"sourceInterval":[1927,1931]},"\r"],["terminal",{"sourceInterval":[1934,1938]},"\n"]]]],
      "rsp": ["define",{"sourceInterval":[1943,1952]},null,[],["plus",{"sourceInterval":[1949,1952]},["app",{"sourceInterval":[1949,1951]},"ws",[]]]],
      "ws": ["define",{"sourceInterval":[2063,2105]},"whitespace",[],["alt",{"sourceInterval":[2081,2105]},["terminal",{"sourceInterval":[2081,2084]}," "],["terminal",{"sourceInterval":[2087,2091]},"\t"],["terminal",{"sourceInterval":[2094,2098]},"\r"],["terminal",{"sourceInterval":[2101,2105]},"\n"]]],
    },
  ];
}
