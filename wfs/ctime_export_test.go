package wfs

// ChangeTimeForTest exposes changeTime to the external tests.
var ChangeTimeForTest = changeTime
