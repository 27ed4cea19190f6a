func.func @before() {
  return
}

// -----

func.func @broken() {
  %x = d2m.core_index(3)
  return
}

// -----

func.func @after() {
  return
}
