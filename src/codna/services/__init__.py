"""The domain. Every public function takes the acting member first and is one transaction."""
