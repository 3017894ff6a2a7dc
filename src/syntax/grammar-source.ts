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
//   term = "-"? (aggregateCall | path) (":" ("ci" | "nullsfirst" | "nullslast"))*   -- each modifier at most once,
//          one placement (no whitespace around ":"); an aggregate term's call is matched by \`sortAggregate\`.
// \`fields\` is scanned by hand in src/syntax/fields.ts, which must accept exactly what the \`fields\` rule accepts (test/syntax/fields-grammar.test.ts).
//
// Character classes are written inline in the hot rules (ident, string, whitespace) rather than as rule
// applications: Ohm memoizes every application, and per-character applications triple the parse time.
ListQL {
  filter = sp disjunction sp end

  disjunction = conjunction (rsp kwOr rsp conjunction)*
  conjunction = primary (rsp kwAnd rsp primary)*

  primary = aggregate | quantifier | comparison | negation | group
  negation = kwNot rsp primary
  group = "(" sp disjunction sp ")"

  quantifier = path "/" kwQuantifier "(" ident ":" rsp disjunction sp ")"

  // Aggregates over a to-many relation (docs/language.md): \`count\`, \`sum\`, \`avg\`, \`min\`, \`max\` are not reserved;
  // they are aggregate functions only after a "/" and before "(", so a field may still be named \`count\`.
  aggregate = aggregateCall rsp predicate
  aggregateCall = path "/" aggregateFunction
  aggregateFunction = kwCount "(" aggregateFilter? ")"                       -- count
                    | kwMeasure "(" ident (sp "," sp aggregateFilter)? ")"   -- measure
  aggregateFilter = ident ":" rsp disjunction sp
  // Start rule of one aggregate sort term (src/syntax/sort.ts), the text before it blanked out.
  sortAggregate = sp aggregateCall end

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

  path = ident ("/" ~aggregateStart ident)*
  aggregateStart = (kwCount | kwMeasure) "("
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
  kwCount = "count" ~identRest
  kwMeasure = ("sum" | "avg" | "min" | "max") ~identRest

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
    {"source":"ListQL {\n  filter = sp disjunction sp end\n\n  disjunction = conjunction (rsp kwOr rsp conjunction)*\n  conjunction = primary (rsp kwAnd rsp primary)*\n\n  primary = aggregate | quantifier | comparison | negation | group\n  negation = kwNot rsp primary\n  group = \"(\" sp disjunction sp \")\"\n\n  quantifier = path \"/\" kwQuantifier \"(\" ident \":\" rsp disjunction sp \")\"\n\n  // Aggregates over a to-many relation (docs/language.md): `count`, `sum`, `avg`, `min`, `max` are not reserved;\n  // they are aggregate functions only after a \"/\" and before \"(\", so a field may still be named `count`.\n  aggregate = aggregateCall rsp predicate\n  aggregateCall = path \"/\" aggregateFunction\n  aggregateFunction = kwCount \"(\" aggregateFilter? \")\"                       -- count\n                    | kwMeasure \"(\" ident (sp \",\" sp aggregateFilter)? \")\"   -- measure\n  aggregateFilter = ident \":\" rsp disjunction sp\n  // Start rule of one aggregate sort term (src/syntax/sort.ts), the text before it blanked out.\n  sortAggregate = sp aggregateCall end\n\n  comparison = path rsp predicate\n  predicate = valueOp rsp literal                   -- value\n            | kwIn rsp list                         -- in\n            | kwNot rsp kwIn rsp list               -- notIn\n            | kwIs rsp (kwNot rsp)? kwNull          -- null\n\n  // The i- operators (ieq … iendswith) match ignoring ASCII case: an extension of v1 (docs/language.md).\n  valueOp = (\"eq\" | \"ne\" | \"gte\" | \"gt\" | \"lte\" | \"lt\" | \"contains\" | \"startswith\" | \"endswith\"\n            | \"ieq\" | \"ine\" | \"icontains\" | \"istartswith\" | \"iendswith\") ~identRest\n\n  list = \"(\" sp literal (sp \",\" sp literal)* sp \")\"\n  literal = string | number | kwBoolean\n\n  path = ident (\"/\" ~aggregateStart ident)*\n  aggregateStart = (kwCount | kwMeasure) \"(\"\n  ident = ~reserved (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\") (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\")*\n  identRest = \"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\"\n\n  // Longest first where one keyword is a prefix of another (gte/gt, lte/lt).\n  reserved = (\"and\" | \"or\" | \"not\" | \"eq\" | \"ne\" | \"gte\" | \"gt\" | \"lte\" | \"lt\" | \"contains\" | \"startswith\"\n             | \"endswith\" | \"ieq\" | \"ine\" | \"icontains\" | \"istartswith\" | \"iendswith\" | \"in\" | \"is\" | \"null\"\n             | \"any\" | \"all\" | \"true\" | \"false\" | \"asc\" | \"desc\") ~identRest\n  kwAnd = \"and\" ~identRest\n  kwOr = \"or\" ~identRest\n  kwNot = \"not\" ~identRest\n  kwIn = \"in\" ~identRest\n  kwIs = \"is\" ~identRest\n  kwNull = \"null\" ~identRest\n  kwBoolean = (\"true\" | \"false\") ~identRest\n  kwQuantifier = (\"any\" | \"all\") ~identRest\n  kwCount = \"count\" ~identRest\n  kwMeasure = (\"sum\" | \"avg\" | \"min\" | \"max\") ~identRest\n\n  // '' stands for one apostrophe. Control characters (U+0000–U+001F, U+007F) are not allowed raw.\n  string = \"'\" (\"''\" | ~(\"'\" | \"\\x00\"..\"\\x1F\" | \"\\x7F\") any)* \"'\"\n\n  number = \"-\"? integer fraction? exponent?\n  integer = \"0\"                 -- zero\n          | \"1\"..\"9\" \"0\"..\"9\"*  -- nonZero\n  fraction = \".\" \"0\"..\"9\"+\n  exponent = (\"e\" | \"E\") (\"+\" | \"-\")? \"0\"..\"9\"+\n\n  // `fields`: names, a nested selection in parentheses after a relation's name, and an alias before such a\n  // name (`id, author(name), best:reviews(stars, body)`). Field names are not reserved: `desc` and `in` are\n  // names here. An output key (alias, else name) given twice at one level and nesting deeper than\n  // maxSelectionDepth are refused after the match, as limits are for filter.\n  fields = sp fieldItem (sp \",\" sp fieldItem)* sp end\n  fieldItem = fieldName sp \":\" sp fieldName sp fieldSelection  -- aliased\n            | fieldName (sp fieldSelection)?                    -- plain\n  fieldSelection = \"(\" sp fieldItem (sp \",\" sp fieldItem)* sp \")\"\n  fieldName = (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\") (\"a\"..\"z\" | \"A\"..\"Z\" | \"_\" | \"0\"..\"9\")*\n\n  sp = (\" \" | \"\\t\" | \"\\r\" | \"\\n\")*\n  rsp = ws+\n  // The description names the failure \"whitespace\", so an error can say that whitespace was required here.\n  ws (whitespace) = \" \" | \"\\t\" | \"\\r\" | \"\\n\"\n}"},
    "ListQL",
    null,
    "filter",
    {
      "filter": ["define",{"sourceInterval":[11,41]},null,[],["seq",{"sourceInterval":[20,41]},["app",{"sourceInterval":[20,22]},"sp",[]],["app",{"sourceInterval":[23,34]},"disjunction",[]],["app",{"sourceInterval":[35,37]},"sp",[]],["app",{"sourceInterval":[38,41]},"end",[]]]],
      "disjunction": ["define",{"sourceInterval":[45,98]},null,[],["seq",{"sourceInterval":[59,98]},["app",{"sourceInterval":[59,70]},"conjunction",[]],["star",{"sourceInterval":[71,98]},["seq",{"sourceInterval":[72,96]},["app",{"sourceInterval":[72,75]},"rsp",[]],["app",{"sourceInterval":[76,80]},"kwOr",[]],["app",{"sourceInterval":[81,84]},"rsp",[]],["app",{"sourceInterval":[85,96]},"conjunction",[]]]]]],
      "conjunction": ["define",{"sourceInterval":[101,147]},null,[],["seq",{"sourceInterval":[115,147]},["app",{"sourceInterval":[115,122]},"primary",[]],["star",{"sourceInterval":[123,147]},["seq",{"sourceInterval":[124,145]},["app",{"sourceInterval":[124,127]},"rsp",[]],["app",{"sourceInterval":[128,133]},"kwAnd",[]],["app",{"sourceInterval":[134,137]},"rsp",[]],["app",{"sourceInterval":[138,145]},"primary",[]]]]]],
      "primary": ["define",{"sourceInterval":[151,215]},null,[],["alt",{"sourceInterval":[161,215]},["app",{"sourceInterval":[161,170]},"aggregate",[]],["app",{"sourceInterval":[173,183]},"quantifier",[]],["app",{"sourceInterval":[186,196]},"comparison",[]],["app",{"sourceInterval":[199,207]},"negation",[]],["app",{"sourceInterval":[210,215]},"group",[]]]],
      "negation": ["define",{"sourceInterval":[218,246]},null,[],["seq",{"sourceInterval":[229,246]},["app",{"sourceInterval":[229,234]},"kwNot",[]],["app",{"sourceInterval":[235,238]},"rsp",[]],["app",{"sourceInterval":[239,246]},"primary",[]]]],
      "group": ["define",{"sourceInterval":[249,282]},null,[],["seq",{"sourceInterval":[257,282]},["terminal",{"sourceInterval":[257,260]},"("],["app",{"sourceInterval":[261,263]},"sp",[]],["app",{"sourceInterval":[264,275]},"disjunction",[]],["app",{"sourceInterval":[276,278]},"sp",[]],["terminal",{"sourceInterval":[279,282]},")"]]],
      "quantifier": ["define",{"sourceInterval":[286,357]},null,[],["seq",{"sourceInterval":[299,357]},["app",{"sourceInterval":[299,303]},"path",[]],["terminal",{"sourceInterval":[304,307]},"/"],["app",{"sourceInterval":[308,320]},"kwQuantifier",[]],["terminal",{"sourceInterval":[321,324]},"("],["app",{"sourceInterval":[325,330]},"ident",[]],["terminal",{"sourceInterval":[331,334]},":"],["app",{"sourceInterval":[335,338]},"rsp",[]],["app",{"sourceInterval":[339,350]},"disjunction",[]],["app",{"sourceInterval":[351,353]},"sp",[]],["terminal",{"sourceInterval":[354,357]},")"]]],
      "aggregate": ["define",{"sourceInterval":[581,620]},null,[],["seq",{"sourceInterval":[593,620]},["app",{"sourceInterval":[593,606]},"aggregateCall",[]],["app",{"sourceInterval":[607,610]},"rsp",[]],["app",{"sourceInterval":[611,620]},"predicate",[]]]],
      "aggregateCall": ["define",{"sourceInterval":[623,665]},null,[],["seq",{"sourceInterval":[639,665]},["app",{"sourceInterval":[639,643]},"path",[]],["terminal",{"sourceInterval":[644,647]},"/"],["app",{"sourceInterval":[648,665]},"aggregateFunction",[]]]],
      "aggregateFunction_count": ["define",{"sourceInterval":[688,751]},null,[],["seq",{"sourceInterval":[688,720]},["app",{"sourceInterval":[688,695]},"kwCount",[]],["terminal",{"sourceInterval":[696,699]},"("],["opt",{"sourceInterval":[700,716]},["app",{"sourceInterval":[700,715]},"aggregateFilter",[]]],["terminal",{"sourceInterval":[717,720]},")"]]],
      "aggregateFunction_measure": ["define",{"sourceInterval":[774,839]},null,[],["seq",{"sourceInterval":[774,826]},["app",{"sourceInterval":[774,783]},"kwMeasure",[]],["terminal",{"sourceInterval":[784,787]},"("],["app",{"sourceInterval":[788,793]},"ident",[]],["opt",{"sourceInterval":[794,822]},["seq",{"sourceInterval":[795,820]},["app",{"sourceInterval":[795,797]},"sp",[]],["terminal",{"sourceInterval":[798,801]},","],["app",{"sourceInterval":[802,804]},"sp",[]],["app",{"sourceInterval":[805,820]},"aggregateFilter",[]]]],["terminal",{"sourceInterval":[823,826]},")"]]],
      "aggregateFunction": ["define",{"sourceInterval":[668,839]},null,[],["alt",{"sourceInterval":[688,839]},["app",{"sourceInterval":[688,720]},"aggregateFunction_count",[]],["app",{"sourceInterval":[774,826]},"aggregateFunction_measure",[]]]],
      "aggregateFilter": ["define",{"sourceInterval":[842,888]},null,[],["seq",{"sourceInterval":[860,888]},["app",{"sourceInterval":[860,865]},"ident",[]],["terminal",{"sourceInterval":[866,869]},":"],["app",{"sourceInterval":[870,873]},"rsp",[]],["app",{"sourceInterval":[874,885]},"disjunction",[]],["app",{"sourceInterval":[886,888]},"sp",[]]]],
      "sortAggregate": ["define",{"sourceInterval":[988,1024]},null,[],["seq",{"sourceInterval":[1004,1024]},["app",{"sourceInterval":[1004,1006]},"sp",[]],["app",{"sourceInterval":[1007,1020]},"aggregateCall",[]],["app",{"sourceInterval":[1021,1024]},"end",[]]]],
      "comparison": ["define",{"sourceInterval":[1028,1059]},null,[],["seq",{"sourceInterval":[1041,1059]},["app",{"sourceInterval":[1041,1045]},"path",[]],["app",{"sourceInterval":[1046,1049]},"rsp",[]],["app",{"sourceInterval":[1050,1059]},"predicate",[]]]],
      "predicate_value": ["define",{"sourceInterval":[1074,1120]},null,[],["seq",{"sourceInterval":[1074,1093]},["app",{"sourceInterval":[1074,1081]},"valueOp",[]],["app",{"sourceInterval":[1082,1085]},"rsp",[]],["app",{"sourceInterval":[1086,1093]},"literal",[]]]],
      "predicate_in": ["define",{"sourceInterval":[1135,1178]},null,[],["seq",{"sourceInterval":[1135,1148]},["app",{"sourceInterval":[1135,1139]},"kwIn",[]],["app",{"sourceInterval":[1140,1143]},"rsp",[]],["app",{"sourceInterval":[1144,1148]},"list",[]]]],
      "predicate_notIn": ["define",{"sourceInterval":[1193,1239]},null,[],["seq",{"sourceInterval":[1193,1216]},["app",{"sourceInterval":[1193,1198]},"kwNot",[]],["app",{"sourceInterval":[1199,1202]},"rsp",[]],["app",{"sourceInterval":[1203,1207]},"kwIn",[]],["app",{"sourceInterval":[1208,1211]},"rsp",[]],["app",{"sourceInterval":[1212,1216]},"list",[]]]],
      "predicate_null": ["define",{"sourceInterval":[1254,1299]},null,[],["seq",{"sourceInterval":[1254,1282]},["app",{"sourceInterval":[1254,1258]},"kwIs",[]],["app",{"sourceInterval":[1259,1262]},"rsp",[]],["opt",{"sourceInterval":[1263,1275]},["seq",{"sourceInterval":[1264,1273]},["app",{"sourceInterval":[1264,1269]},"kwNot",[]],["app",{"sourceInterval":[1270,1273]},"rsp",[]]]],["app",{"sourceInterval":[1276,1282]},"kwNull",[]]]],
      "predicate": ["define",{"sourceInterval":[1062,1299]},null,[],["alt",{"sourceInterval":[1074,1299]},["app",{"sourceInterval":[1074,1093]},"predicate_value",[]],["app",{"sourceInterval":[1135,1148]},"predicate_in",[]],["app",{"sourceInterval":[1193,1216]},"predicate_notIn",[]],["app",{"sourceInterval":[1254,1282]},"predicate_null",[]]]],
      "valueOp": ["define",{"sourceInterval":[1409,1586]},null,[],["seq",{"sourceInterval":[1419,1586]},["alt",{"sourceInterval":[1420,1574]},["terminal",{"sourceInterval":[1420,1424]},"eq"],["terminal",{"sourceInterval":[1427,1431]},"ne"],["terminal",{"sourceInterval":[1434,1439]},"gte"],["terminal",{"sourceInterval":[1442,1446]},"gt"],["terminal",{"sourceInterval":[1449,1454]},"lte"],["terminal",{"sourceInterval":[1457,1461]},"lt"],["terminal",{"sourceInterval":[1464,1474]},"contains"],["terminal",{"sourceInterval":[1477,1489]},"startswith"],["terminal",{"sourceInterval":[1492,1502]},"endswith"],["terminal",{"sourceInterval":[1517,1522]},"ieq"],["terminal",{"sourceInterval":[1525,1530]},"ine"],["terminal",{"sourceInterval":[1533,1544]},"icontains"],["terminal",{"sourceInterval":[1547,1560]},"istartswith"],["terminal",{"sourceInterval":[1563,1574]},"iendswith"]],["not",{"sourceInterval":[1576,1586]},["app",{"sourceInterval":[1577,1586]},"identRest",[]]]]],
      "list": ["define",{"sourceInterval":[1590,1639]},null,[],["seq",{"sourceInterval":[1597,1639]},["terminal",{"sourceInterval":[1597,1600]},"("],["app",{"sourceInterval":[1601,1603]},"sp",[]],["app",{"sourceInterval":[1604,1611]},"literal",[]],["star",{"sourceInterval":[1612,1632]},["seq",{"sourceInterval":[1613,1630]},["app",{"sourceInterval":[1613,1615]},"sp",[]],["terminal",{"sourceInterval":[1616,1619]},","],["app",{"sourceInterval":[1620,1622]},"sp",[]],["app",{"sourceInterval":[1623,1630]},"literal",[]]]],["app",{"sourceInterval":[1633,1635]},"sp",[]],["terminal",{"sourceInterval":[1636,1639]},")"]]],
      "literal": ["define",{"sourceInterval":[1642,1679]},null,[],["alt",{"sourceInterval":[1652,1679]},["app",{"sourceInterval":[1652,1658]},"string",[]],["app",{"sourceInterval":[1661,1667]},"number",[]],["app",{"sourceInterval":[1670,1679]},"kwBoolean",[]]]],
      "path": ["define",{"sourceInterval":[1683,1724]},null,[],["seq",{"sourceInterval":[1690,1724]},["app",{"sourceInterval":[1690,1695]},"ident",[]],["star",{"sourceInterval":[1696,1724]},["seq",{"sourceInterval":[1697,1722]},["terminal",{"sourceInterval":[1697,1700]},"/"],["not",{"sourceInterval":[1701,1716]},["app",{"sourceInterval":[1702,1716]},"aggregateStart",[]]],["app",{"sourceInterval":[1717,1722]},"ident",[]]]]]],
      "aggregateStart": ["define",{"sourceInterval":[1727,1769]},null,[],["seq",{"sourceInterval":[1744,1769]},["alt",{"sourceInterval":[1745,1764]},["app",{"sourceInterval":[1745,1752]},"kwCount",[]],["app",{"sourceInterval":[1755,1764]},"kwMeasure",[]]],["terminal",{"sourceInterval":[1766,1769]},"("]]],
      "ident": ["define",{"sourceInterval":[1772,1857]},null,[],["seq",{"sourceInterval":[1780,1857]},["not",{"sourceInterval":[1780,1789]},["app",{"sourceInterval":[1781,1789]},"reserved",[]]],["alt",{"sourceInterval":[1791,1816]},["range",{"sourceInterval":[1791,1799]},"a","z"],["range",{"sourceInterval":[1802,1810]},"A","Z"],["terminal",{"sourceInterval":[1813,1816]},"_"]],["star",{"sourceInterval":[1818,1857]},["alt",{"sourceInterval":[1819,1855]},["range",{"sourceInterval":[1819,1827]},"a","z"],["range",{"sourceInterval":[1830,1838]},"A","Z"],["terminal",{"sourceInterval":[1841,1844]},"_"],["range",{"sourceInterval":[1847,1855]},"0","9"]]]]],
      "identRest": ["define",{"sourceInterval":[1860,1908]},null,[],["alt",{"sourceInterval":[1872,1908]},["range",{"sourceInterval":[1872,1880]},"a","z"],["range",{"sourceInterval":[1883,1891]},"A","Z"],["terminal",{"sourceInterval":[1894,1897]},"_"],["range",{"sourceInterval":[1900,1908]},"0","9"]]],
      "reserved": ["define",{"sourceInterval":[1990,2280]},null,[],["seq",{"sourceInterval":[2001,2280]},["alt",{"sourceInterval":[2002,2268]},["terminal",{"sourceInterval":[2002,2007]},"and"],["terminal",{"sourceInterval":[2010,2014]},"or"],["terminal",{"sourceInterval":[2017,2022]},"not"],["terminal",{"sourceInterval":[2025,2029]},"eq"],["terminal",{"sourceInterval":[2032,2036]},"ne"],["terminal",{"sourceInterval":[2039,2044]},"gte"],["terminal",{"sourceInterval":[2047,2051]},"gt"],["terminal",{"sourceInterval":[2054,2059]},"lte"],["terminal",{"sourceInterval":[2062,2066]},"lt"],["terminal",{"sourceInterval":[2069,2079]},"contains"],["terminal",{"sourceInterval":[2082,2094]},"startswith"],["terminal",{"sourceInterval":[2110,2120]},"endswith"],["terminal",{"sourceInterval":[2123,2128]},"ieq"],["terminal",{"sourceInterval":[2131,2136]},"ine"],["terminal",{"sourceInterval":[2139,2150]},"icontains"],["terminal",{"sourceInterval":[2153,2166]},"istartswith"],["terminal",{"sourceInterval":[2169,2180]},"iendswith"],["terminal",{"sourceInterval":[2183,2187]},"in"],["terminal",{"sourceInterval":[2190,2194]},"is"],["terminal",{"sourceInterval":[2197,2203]},"null"],["terminal",{"sourceInterval":[2219,2224]},"any"],["terminal",{"sourceInterval":[2227,2232]},"all"],["terminal",{"sourceInterval":[2235,2241]},"true"],["terminal",{"sourceInterval":[2244,2251]},"false"],["terminal",{"sourceInterval":[2254,2259]},"asc"],["terminal",{"sourceInterval":[2262,2268]},"desc"]],["not",{"sourceInterval":[2270,2280]},["app",{"sourceInterval":[2271,2280]},"identRest",[]]]]],
      "kwAnd": ["define",{"sourceInterval":[2283,2307]},null,[],["seq",{"sourceInterval":[2291,2307]},["terminal",{"sourceInterval":[2291,2296]},"and"],["not",{"sourceInterval":[2297,2307]},["app",{"sourceInterval":[2298,2307]},"identRest",[]]]]],
      "kwOr": ["define",{"sourceInterval":[2310,2332]},null,[],["seq",{"sourceInterval":[2317,2332]},["terminal",{"sourceInterval":[2317,2321]},"or"],["not",{"sourceInterval":[2322,2332]},["app",{"sourceInterval":[2323,2332]},"identRest",[]]]]],
      "kwNot": ["define",{"sourceInterval":[2335,2359]},null,[],["seq",{"sourceInterval":[2343,2359]},["terminal",{"sourceInterval":[2343,2348]},"not"],["not",{"sourceInterval":[2349,2359]},["app",{"sourceInterval":[2350,2359]},"identRest",[]]]]],
      "kwIn": ["define",{"sourceInterval":[2362,2384]},null,[],["seq",{"sourceInterval":[2369,2384]},["terminal",{"sourceInterval":[2369,2373]},"in"],["not",{"sourceInterval":[2374,2384]},["app",{"sourceInterval":[2375,2384]},"identRest",[]]]]],
      "kwIs": ["define",{"sourceInterval":[2387,2409]},null,[],["seq",{"sourceInterval":[2394,2409]},["terminal",{"sourceInterval":[2394,2398]},"is"],["not",{"sourceInterval":[2399,2409]},["app",{"sourceInterval":[2400,2409]},"identRest",[]]]]],
      "kwNull": ["define",{"sourceInterval":[2412,2438]},null,[],["seq",{"sourceInterval":[2421,2438]},["terminal",{"sourceInterval":[2421,2427]},"null"],["not",{"sourceInterval":[2428,2438]},["app",{"sourceInterval":[2429,2438]},"identRest",[]]]]],
      "kwBoolean": ["define",{"sourceInterval":[2441,2482]},null,[],["seq",{"sourceInterval":[2453,2482]},["alt",{"sourceInterval":[2454,2470]},["terminal",{"sourceInterval":[2454,2460]},"true"],["terminal",{"sourceInterval":[2463,2470]},"false"]],["not",{"sourceInterval":[2472,2482]},["app",{"sourceInterval":[2473,2482]},"identRest",[]]]]],
      "kwQuantifier": ["define",{"sourceInterval":[2485,2526]},null,[],["seq",{"sourceInterval":[2500,2526]},["alt",{"sourceInterval":[2501,2514]},["terminal",{"sourceInterval":[2501,2506]},"any"],["terminal",{"sourceInterval":[2509,2514]},"all"]],["not",{"sourceInterval":[2516,2526]},["app",{"sourceInterval":[2517,2526]},"identRest",[]]]]],
      "kwCount": ["define",{"sourceInterval":[2529,2557]},null,[],["seq",{"sourceInterval":[2539,2557]},["terminal",{"sourceInterval":[2539,2546]},"count"],["not",{"sourceInterval":[2547,2557]},["app",{"sourceInterval":[2548,2557]},"identRest",[]]]]],
      "kwMeasure": ["define",{"sourceInterval":[2560,2614]},null,[],["seq",{"sourceInterval":[2572,2614]},["alt",{"sourceInterval":[2573,2602]},["terminal",{"sourceInterval":[2573,2578]},"sum"],["terminal",{"sourceInterval":[2581,2586]},"avg"],["terminal",{"sourceInterval":[2589,2594]},"min"],["terminal",{"sourceInterval":[2597,2602]},"max"]],["not",{"sourceInterval":[2604,2614]},["app",{"sourceInterval":[2605,2614]},"identRest",[]]]]],
      "string": ["define",{"sourceInterval":[2717,2780]},null,[],["seq",{"sourceInterval":[2726,2780]},["terminal",{"sourceInterval":[2726,2729]},"'"],["star",{"sourceInterval":[2730,2776]},["alt",{"sourceInterval":[2731,2774]},["terminal",{"sourceInterval":[2731,2735]},"''"],["seq",{"sourceInterval":[2738,2774]},["not",{"sourceInterval":[2738,2770]},["alt",{"sourceInterval":[2740,2769]},["terminal",{"sourceInterval":[2740,2743]},"'"],["range",{"sourceInterval":[2746,2760]},"\u0000","\u001f"],["terminal",{"sourceInterval":[2763,2769]},""]]],["app",{"sourceInterval":[2771,2774]},"any",[]]]]],["terminal",{"sourceInterval":[2777,2780]},"'"]]],
      "number": ["define",{"sourceInterval":[2784,2825]},null,[],["seq",{"sourceInterval":[2793,2825]},["opt",{"sourceInterval":[2793,2797]},["terminal",{"sourceInterval":[2793,2796]},"-"]],["app",{"sourceInterval":[2798,2805]},"integer",[]],["opt",{"sourceInterval":[2806,2815]},["app",{"sourceInterval":[2806,2814]},"fraction",[]]],["opt",{"sourceInterval":[2816,2825]},["app",{"sourceInterval":[2816,2824]},"exponent",[]]]]],
      "integer_zero": ["define",{"sourceInterval":[2838,2865]},null,[],["terminal",{"sourceInterval":[2838,2841]},"0"]],
      "integer_nonZero": ["define",{"sourceInterval":[2878,2908]},null,[],["seq",{"sourceInterval":[2878,2896]},["range",{"sourceInterval":[2878,2886]},"1","9"],["star",{"sourceInterval":[2887,2896]},["range",{"sourceInterval":[2887,2895]},"0","9"]]]],
      "integer": ["define",{"sourceInterval":[2828,2908]},null,[],["alt",{"sourceInterval":[2838,2908]},["app",{"sourceInterval":[2838,2841]},"integer_zero",[]],["app",{"sourceInterval":[2878,2896]},"integer_nonZero",[]]]],
      "fraction": ["define",{"sourceInterval":[2911,2935]},null,[],["seq",{"sourceInterval":[2922,2935]},["terminal",{"sourceInterval":[2922,2925]},"."],["plus",{"sourceInterval":[2926,2935]},["range",{"sourceInterval":[2926,2934]},"0","9"]]]],
      "exponent": ["define",{"sourceInterval":[2938,2983]},null,[],["seq",{"sourceInterval":[2949,2983]},["alt",{"sourceInterval":[2950,2959]},["terminal",{"sourceInterval":[2950,2953]},"e"],["terminal",{"sourceInterval":[2956,2959]},"E"]],["opt",{"sourceInterval":[2961,2973]},["alt",{"sourceInterval":[2962,2971]},["terminal",{"sourceInterval":[2962,2965]},"+"],["terminal",{"sourceInterval":[2968,2971]},"-"]]],["plus",{"sourceInterval":[2974,2983]},["range",{"sourceInterval":[2974,2982]},"0","9"]]]],
      "fields": ["define",{"sourceInterval":[3381,3432]},null,[],["seq",{"sourceInterval":[3390,3432]},["app",{"sourceInterval":[3390,3392]},"sp",[]],["app",{"sourceInterval":[3393,3402]},"fieldItem",[]],["star",{"sourceInterval":[3403,3425]},["seq",{"sourceInterval":[3404,3423]},["app",{"sourceInterval":[3404,3406]},"sp",[]],["terminal",{"sourceInterval":[3407,3410]},","],["app",{"sourceInterval":[3411,3413]},"sp",[]],["app",{"sourceInterval":[3414,3423]},"fieldItem",[]]]],["app",{"sourceInterval":[3426,3428]},"sp",[]],["app",{"sourceInterval":[3429,3432]},"end",[]]]],
      "fieldItem_aliased": ["define",{"sourceInterval":[3447,3506]},null,[],["seq",{"sourceInterval":[3447,3494]},["app",{"sourceInterval":[3447,3456]},"fieldName",[]],["app",{"sourceInterval":[3457,3459]},"sp",[]],["terminal",{"sourceInterval":[3460,3463]},":"],["app",{"sourceInterval":[3464,3466]},"sp",[]],["app",{"sourceInterval":[3467,3476]},"fieldName",[]],["app",{"sourceInterval":[3477,3479]},"sp",[]],["app",{"sourceInterval":[3480,3494]},"fieldSelection",[]]]],
      "fieldItem_plain": ["define",{"sourceInterval":[3521,3579]},null,[],["seq",{"sourceInterval":[3521,3551]},["app",{"sourceInterval":[3521,3530]},"fieldName",[]],["opt",{"sourceInterval":[3531,3551]},["seq",{"sourceInterval":[3532,3549]},["app",{"sourceInterval":[3532,3534]},"sp",[]],["app",{"sourceInterval":[3535,3549]},"fieldSelection",[]]]]]],
      "fieldItem": ["define",{"sourceInterval":[3435,3579]},null,[],["alt",{"sourceInterval":[3447,3579]},["app",{"sourceInterval":[3447,3494]},"fieldItem_aliased",[]],["app",{"sourceInterval":[3521,3551]},"fieldItem_plain",[]]]],
      "fieldSelection": ["define",{"sourceInterval":[3582,3645]},null,[],["seq",{"sourceInterval":[3599,3645]},["terminal",{"sourceInterval":[3599,3602]},"("],["app",{"sourceInterval":[3603,3605]},"sp",[]],["app",{"sourceInterval":[3606,3615]},"fieldItem",[]],["star",{"sourceInterval":[3616,3638]},["seq",{"sourceInterval":[3617,3636]},["app",{"sourceInterval":[3617,3619]},"sp",[]],["terminal",{"sourceInterval":[3620,3623]},","],["app",{"sourceInterval":[3624,3626]},"sp",[]],["app",{"sourceInterval":[3627,3636]},"fieldItem",[]]]],["app",{"sourceInterval":[3639,3641]},"sp",[]],["terminal",{"sourceInterval":[3642,3645]},")"]]],
      "fieldName": ["define",{"sourceInterval":[3648,3727]},null,[],["seq",{"sourceInterval":[3660,3727]},["alt",{"sourceInterval":[3661,3686]},["range",{"sourceInterval":[3661,3669]},"a","z"],["range",{"sourceInterval":[3672,3680]},"A","Z"],["terminal",{"sourceInterval":[3683,3686]},"_"]],["star",{"sourceInterval":[3688,3727]},["alt",{"sourceInterval":[3689,3725]},["range",{"sourceInterval":[3689,3697]},"a","z"],["range",{"sourceInterval":[3700,3708]},"A","Z"],["terminal",{"sourceInterval":[3711,3714]},"_"],["range",{"sourceInterval":[3717,3725]},"0","9"]]]]],
      "sp": ["define",{"sourceInterval":[3731,3763]},null,[],["star",{"sourceInterval":[3736,3763]},["alt",{"sourceInterval":[3737,3761]},["terminal",{"sourceInterval":[3737,3740]}," "],["terminal",{"sourceInterval":[3743,3747]},"\t"],["terminal",{"sourceInterval":[3750,3754]},"\r"],["terminal",{"sourceInterval":[3757,3761]},"\n"]]]],
      "rsp": ["define",{"sourceInterval":[3766,3775]},null,[],["plus",{"sourceInterval":[3772,3775]},["app",{"sourceInterval":[3772,3774]},"ws",[]]]],
      "ws": ["define",{"sourceInterval":[3886,3928]},"whitespace",[],["alt",{"sourceInterval":[3904,3928]},["terminal",{"sourceInterval":[3904,3907]}," "],["terminal",{"sourceInterval":[3910,3914]},"\t"],["terminal",{"sourceInterval":[3917,3921]},"\r"],["terminal",{"sourceInterval":[3924,3928]},"\n"]]],
    },
  ];
}
