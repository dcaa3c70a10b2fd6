"""Running the tasks inside lm-eval: the task class every YAML names (:mod:`.task`), the one ``simple_evaluate``
wrapper and results saving (:mod:`.runner`), the request cache that makes runs resumable (:mod:`.request_cache`),
sparse cell plans (:mod:`.cellplan`), the offline SmolLM2 model (:mod:`.models`) and the regex-constrained backends
(:mod:`.constrained`)."""
