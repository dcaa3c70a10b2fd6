"""The package's own task tree: one folder per domain, one folder per dataset below it."""

# the order of the domains in the generated groups, the CLI and every report (lm_eval_enterprise.data.tasktree)
DOMAIN_ORDER = ("finance", "legal", "climate", "cyber", "nlu")
