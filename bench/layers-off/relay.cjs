'use strict';
require('../layers-off.cjs')('relay');
