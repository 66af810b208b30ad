package astsearch

// fixtureSource is a text parsed by the fixture-backed tests beyond the conformance cases;
// TestFixturesCurrent records its tree.
type fixtureSource struct {
	lang Lang
	text string
}

// Sources of the search and rewrite tests (search_external_test.go uses the same texts
// through the fixture backend).
var fixtureSources = []fixtureSource{
	{JavaScript, "console.log($A)"},
	{JavaScript, "console.log($$$)"},
	{JavaScript, "logger.info($A)"},
	{JavaScript, "const fs = require('fs');\nfunction load(p) {\n  console.log(p);\n  return fs.readFileSync(p);\n}\n"},
	{JavaScript, "console.log('util');\n"},
	{JavaScript, "console.log(1);\nconsole.log(2);\nconsole.log(3);\n"},
	{JavaScript, "if (a) {\r\n  console.log(x);\r\n}\r\n"},
	{JavaScript, "console.log(x)"},
	{JavaScript, "foo(foo(1))"},
	{JavaScript, "foo($$$)"},
}
