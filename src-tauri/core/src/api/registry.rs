//! The application's plugin registry: public plugin objects by identifier, as
//! scripts find them (`registry.get::<CalendarPlugin>("full-calendar")`).

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

/// Plugin objects by id. Filled once at start, read-only afterwards.
#[derive(Default)]
pub struct Registry {
    plugins: HashMap<String, Arc<dyn Any + Send + Sync>>,
}

impl Registry {
    /// Registers `plugin` under `id`, replacing any earlier one.
    pub fn register<T: Any + Send + Sync>(&mut self, id: &str, plugin: Arc<T>) {
        self.plugins.insert(id.to_string(), plugin);
    }

    /// The plugin registered under `id`, if it is a `T`.
    pub fn get<T: Any + Send + Sync>(&self, id: &str) -> Option<Arc<T>> {
        self.plugins.get(id)?.clone().downcast().ok()
    }

    /// The registered ids, sorted.
    pub fn ids(&self) -> Vec<&str> {
        let mut ids: Vec<_> = self.plugins.keys().map(String::as_str).collect();
        ids.sort_unstable();
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_are_by_id_and_type() {
        let mut registry = Registry::default();
        registry.register("numbers", Arc::new(7u32));
        assert_eq!(registry.get::<u32>("numbers").as_deref(), Some(&7));
        assert!(registry.get::<String>("numbers").is_none());
        assert!(registry.get::<u32>("missing").is_none());
        assert_eq!(registry.ids(), ["numbers"]);
    }
}
