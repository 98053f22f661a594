"""Search attribute keys (Web UI filters: ColloquyPipeline="interview" AND ColloquyStatus="running")."""

from temporalio.common import SearchAttributeKey

PIPELINE = SearchAttributeKey.for_keyword("ColloquyPipeline")
PHASE = SearchAttributeKey.for_keyword("ColloquyPhase")
TOPIC = SearchAttributeKey.for_keyword("ColloquyTopic")
STATUS = SearchAttributeKey.for_keyword("ColloquyStatus")
