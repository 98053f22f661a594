"""Pure rules of spoken interviews (no temporalio, no I/O): word error rate, clips (type, size, identity),
voices per language, end of turn on silence, chunks cut at pauses, audio retention."""
