"""Study mode's pure logic: the participant ledger, coverage, the reduce step, the report renderers."""
