/*
 * utim core: the board's instances (look-up by index and by name), claims,
 * and the properties every instance answers (static ones from its packed
 * properties and configuration, run-time ones from its driver).
 */
#include "core.h"

/* ---- instances ------------------------------------------------------------ */

unsigned utim_count(void) {
  return utim_board.count;
}

const utim_periph_t *utim_by_index(unsigned index) {
  return index < utim_board.count ? utim_board.instances[index] : NULL;
}

static bool str_eq(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

const utim_periph_t *utim_by_name(const char *name) {
  if (name == NULL) {
    return NULL;
  }
  for (unsigned i = 0u; i < utim_board.count; i++) {
    const utim_periph_t *p = utim_board.instances[i];
    if (p->dev->name != NULL && str_eq(p->dev->name, name)) {
      return p;
    }
  }
  return NULL;
}

int utim_claim(const utim_periph_t *p, const void *owner) {
  if (p == NULL || owner == NULL) {
    return -EINVAL;
  }
  utim_state_t *st = p->dev->state;
  uint32_t key = utim_port_lock();
  int rc = 0;
  if (st->owner == NULL) {
    st->owner = owner;
  } else if (st->owner != owner) {
    rc = -EBUSY;
  }
  utim_port_unlock(key);
  return rc;
}

int utim_release(const utim_periph_t *p, const void *owner) {
  if (p == NULL || owner == NULL) {
    return -EINVAL;
  }
  utim_state_t *st = p->dev->state;
  uint32_t key = utim_port_lock();
  int rc = 0;
  if (st->owner == NULL) {
    rc = -EINVAL;
  } else if (st->owner != owner) {
    rc = -EBUSY;
  } else {
    st->owner = NULL;
  }
  utim_port_unlock(key);
  return rc;
}

/* ---- properties ------------------------------------------------------------------ */

int utim_get_property(const utim_periph_t *p, unsigned id, uint64_t *value) {
  if (value == NULL) {
    return -EINVAL;
  }
  const utim_state_t *st = p->dev->state;
  switch (id) {
  case UTIM_PROP_WIDTH:
    *value = utim_width(p);
    return 0;
  case UTIM_PROP_MAX:
    *value = utim_max(p);
    return 0;
  case UTIM_PROP_CHANNELS:
    *value = utim_channels(p);
    return 0;
  case UTIM_PROP_COUNT_DOWN:
    *value = utim_count_down(p);
    return 0;
  case UTIM_PROP_CAPS:
    *value = utim_caps(p);
    return 0;
  case UTIM_PROP_FREQ:
    *value = st->hz;
    return 0;
  case UTIM_PROP_MIN_DISTANCE:
    *value = p->dev->min_distance;
    return 0;
  case UTIM_PROP_CLOCKS:
    *value = p->dev->nclocks;
    return 0;
  case UTIM_PROP_CLOCK:
    *value = st->clk;
    return 0;
  case UTIM_PROP_DIVIDER:
    *value = st->hz != 0u ? p->dev->clocks[st->clk].hz / st->hz : 0u;
    return 0;
  case UTIM_PROP_TOP:
    if ((utim_caps(p) & UTIM_CAP_TOP) == 0u) {
      *value = utim_max(p);
      return 0;
    }
    return p->drv->get_property(p, UTIM_HPROP_TOP, value);
  case UTIM_PROP_OVF_PENDING:
    if ((utim_caps(p) & UTIM_CAP_OVERFLOW) == 0u || p->drv->get_property == NULL) {
      return -ENOTSUP;
    }
    return p->drv->get_property(p, UTIM_HPROP_OVF_PENDING, value);
  default:
    break;
  }
  if (id < UTIM_PROP_DRIVER_BASE || p->drv->get_property == NULL) {
    return -ENOTSUP;
  }
  return p->drv->get_property(p, id, value);
}

int utim_set_property(const utim_periph_t *p, unsigned id, uint64_t value) {
  if (id == UTIM_PROP_TOP) {
    if ((utim_caps(p) & UTIM_CAP_TOP) == 0u) {
      return -ENOTSUP;
    }
    if (value == 0u || value > utim_max(p)) {
      return -EINVAL;
    }
    return p->drv->set_property(p, UTIM_HPROP_TOP, value);
  }
  if (id >= UTIM_PROP_WIDTH && id <= UTIM_PROP_OVF_PENDING) {
    return -EINVAL;
  }
  if (id < UTIM_PROP_DRIVER_BASE || p->drv->set_property == NULL) {
    return -ENOTSUP;
  }
  return p->drv->set_property(p, id, value);
}
